package shapes_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The second sample, a payments API of another shape than ticketsvc (the
// merchant in the path, the key in the JSON body or in X-Request-Id, a
// strict int64 decoder, 200 for create and replay, a reused and a missing
// key both 400 told apart by errors[0].code), run as processes: its
// correct modes pass with every fault kind, each fired, and each of its
// bugs is caught first by its check with a minimal plan.
func TestPaysvcModes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds paysvc and starts processes")
	}
	bin, err := sample.BuildPayBinary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a1 := call("A", "k1", 0)
	for _, tc := range []struct {
		mode    string
		minimal []model.Step
	}{
		{mode: sample.PayCorrect},
		{mode: sample.PayRequestID},
		{mode: "paysvc/replay-changed", minimal: []model.Step{a1, a1}},
		{mode: "paysvc/merchant-leak", minimal: []model.Step{a1, call("B", "k1", 0)}},
		{mode: "paysvc/racy-insert", minimal: []model.Step{burst(a1, a1)}},
		{mode: "paysvc/ledger-on-retry", minimal: []model.Step{a1, a1}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel() // a database, replicas and ports each
			cfg, err := sample.PayProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.MaxBugs = 40, 7, time.Minute, 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.minimal == nil {
				if res.Verdict != checks.Pass {
					for _, f := range res.Failures {
						t.Errorf("%s, minimal plan %s: %v", f.Check, f.Plan, f.Violations)
					}
					t.Fatalf("verdict %s: %v", res.Verdict, res.Err)
				}
				assertAllFired(t, res, append(cfg.Faults, model.FaultDBStall))
				return
			}
			want := sample.Expected[tc.mode]
			if res.Verdict != checks.Fail || len(res.Failures) == 0 || res.Failures[0].Check != want {
				t.Fatalf("verdict %s (%v) %+v, want %s first", res.Verdict, res.Err, res.Failures, want)
			}
			if got := res.Failures[0].Plan; skeleton(got).String() != (model.Plan{Steps: tc.minimal}).String() {
				t.Errorf("minimal plan:\n%swant:\n%s", got, model.Plan{Steps: tc.minimal})
			}
		})
	}
}
