package procfaults_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The ticketsvc binary, run as processes that plans restart and crash:
// keys kept in memory are caught by IDEM-001 with a call, a restart and
// the same call; a ticket and its notification in two transactions by
// IDEM-002 with a crashed call, a restart and a retry; and the correct
// mode passes with every fault kind, each planned fault fired.
func TestProcessFaultModes(t *testing.T) {
	t.Parallel()
	bin := sampleBinary(t)
	restart := model.Step{Kind: model.StepRestart}
	for _, tc := range []struct {
		mode    string
		check   checks.ID
		minimal []model.Step
	}{
		{mode: sample.Correct},
		{mode: "key-first"},
		{mode: "memory-keys", check: checks.DuplicateEffect, minimal: []model.Step{call("A", "k1", 0), restart, call("A", "k1", 0)}},
		// The partial effect shows without a retry (issue 16.10).
		{mode: "non-atomic", check: checks.MissingEffect, minimal: []model.Step{faulted("A", "k1", model.FaultCrash), restart}},
		{mode: "stuck-in-flight", check: checks.StuckAction, minimal: []model.Step{faulted("A", "k1", model.FaultCrash), restart, call("A", "k1", 0)}},
		{mode: "complete-after-commit", check: checks.StuckAction, minimal: []model.Step{faulted("A", "k1", model.FaultCrashKeyRecord), restart, call("A", "k1", 0)}},
		{mode: "stores-errors", check: checks.ErrorReplay, minimal: []model.Step{failed("A", "k1", "40001"), call("A", "k1", 0)}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), tc.mode, ticketsvc.LayoutKeys)
			if err != nil {
				t.Fatal(err)
			}
			// Plans that restart take ~0.2 s a restart: shrinking needs time.
			cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.DBStall = 40, 5, time.Minute, "tickets"
			cfg.MaxBugs = 1
			if tc.check == "" {
				// Each of a dozen kinds must fire: the first plans of a
				// run are dealt one kind each (stress.planAt), so 30
				// plans carry every kind and as many plans again drawn
				// freely.
				cfg.Plans = 30
			}
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.check == "" {
				if res.Verdict != checks.Pass {
					t.Fatalf("verdict %s: %v %+v", res.Verdict, res.Err, res.Failures)
				}
				t.Logf("faults: %v", res.Faults)
				assertAllFired(t, res, append(cfg.Faults, model.FaultDBStall))
				return
			}
			if res.Verdict != checks.Fail || len(res.Failures) == 0 || res.Failures[0].Check != tc.check {
				t.Fatalf("verdict %s (%v), want %s", res.Verdict, res.Err, tc.check)
			}
			// The shape of the plan is the finding; which payload variant
			// shrinking kept is up to the budget on a loaded machine.
			got := res.Failures[0].Plan
			if skeleton(got).String() != (model.Plan{Steps: tc.minimal}).String() {
				f := res.Failures[0]
				t.Errorf("minimal plan (not minimal %v, shrunk in %s of %s; %d executions; notes %q):\n%swant:\n%s",
					f.NotMinimal, f.Shrink.Round(time.Millisecond), f.Budget, res.Executions, res.Notes, got, model.Plan{Steps: tc.minimal})
			}
		})
	}
}

// A replica paused with its transaction open while the retry goes to the
// other replica: the pause fires every time, and both correct designs
// pass (the retry answers in_flight, or waits and replays).
func TestPauseRun(t *testing.T) {
	t.Parallel()
	bin := sampleBinary(t)
	for _, mode := range []string{sample.Correct, "key-first"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Process.Replicas, cfg.Faults = 2, []model.Fault{model.FaultPause}
			cfg.Plans, cfg.Seed = 30, 8
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != checks.Pass {
				t.Fatalf("verdict %s: %v %+v", res.Verdict, res.Err, res.Failures)
			}
			t.Logf("faults: %v", res.Faults)
			assertAllFired(t, res, cfg.Faults)
		})
	}
}

// A process run whose target.url says {port} for the replica's port
// reaches the replicas idemstress starts, restarts and crashes: every
// call is answered and the correct mode passes.
func TestPortPlaceholderRun(t *testing.T) {
	t.Parallel()
	bin := sampleBinary(t)
	cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), sample.Correct, ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTP.URL = "http://127.0.0.1:{port}/tickets"
	cfg.Plans, cfg.Faults = 20, []model.Fault{model.FaultRestart, model.FaultCrash}
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass || res.Calls == 0 {
		t.Fatalf("verdict %s after %d calls: %v (%+v)", res.Verdict, res.Calls, res.Err, res.Failures)
	}
	assertAllFired(t, res, cfg.Faults)
}
