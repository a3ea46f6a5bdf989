package zoo_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// The slow-original fault needs no processes, so it runs against the
// sample served in-process: short-lease, whose retry takes an expired
// claim over while the original still runs, is caught as IDEM-001 with
// the one faulted call (the fault sends the retry itself); the correct
// designs pass with every slow original fired.
func TestSlowOriginalRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  string
		check checks.ID
	}{
		{mode: "short-lease", check: checks.DuplicateEffect},
		{mode: sample.Correct},
		{mode: "key-first"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			svc := startSample(t, tc.mode, ticketsvc.LayoutKeys)
			cfg, err := svc.Config(30, 4)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Faults, cfg.Contract.Lease = []model.Fault{model.FaultSlowOriginal}, ticketsvc.ShortLease
			cfg.ShrinkTime, cfg.MaxBugs = time.Minute, 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.check == "" {
				if res.Verdict != checks.Pass {
					t.Fatalf("verdict %s: %v %+v", res.Verdict, res.Err, res.Failures)
				}
				stresstest.AssertAllFired(t, res, cfg.Faults)
				return
			}
			if res.Verdict != checks.Fail || len(res.Failures) == 0 || res.Failures[0].Check != tc.check {
				t.Fatalf("verdict %s (%v), want %s", res.Verdict, res.Err, tc.check)
			}
			want := model.Plan{Steps: []model.Step{stresstest.Faulted("A", "k1", model.FaultSlowOriginal)}}
			if got := stresstest.Skeleton(res.Failures[0].Plan); got.String() != want.String() {
				t.Errorf("minimal plan:\n%swant:\n%s", res.Failures[0].Plan, want)
			}
		})
	}
}
