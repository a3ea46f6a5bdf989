package bugrows_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// Issue 16.9, done when: against a service whose 500 under a burst, stuck
// key after a crash and hang under a burst are each reachable, one run
// with the default budget (100 plans, ShrinkTime's 30 s, the search's own
// bug identity) reports all three, each minimal. Before the shrink budget
// fitted costly candidates and bugs were told apart by more than their
// check, a run saw the hang and the stuck key and reported neither.
func TestThreeBugsInOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the sample service, starts processes and waits out hangs")
	}
	// Mostly waiting (hangs, recoveries, restarts): beside the rows of
	// TestOneRowPerBug, not after them; its shrinks' budgets, stretched to
	// sixteen of its costly candidates, leave it minutes to spare.
	t.Parallel()
	bin := stresstest.SampleBinaryBesideCluster(t)
	const mode = "unique-violation-500,stuck-in-flight,hang-on-burst"
	cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	// The 500 needs both calls past their lookup of the key, which the
	// stall of the key table makes certain.
	cfg.Faults, cfg.DBStall, cfg.Seed = []model.Fault{model.FaultCrash}, "idempotency_keys", 1
	// A hang waits out the stall's wait, then the call timeout: keep the
	// first short (the sample's calls reach the key table in milliseconds).
	cfg.StallWait = time.Second
	// Once the three are reported the search may end: the rest of its
	// plans (each hang a call timeout) would take the binary past go
	// test's ten minutes.
	cfg.MaxBugs = 3
	// The plans of seed 1 as they were drawn before broken calls: with
	// them, the first failing plan is quicker, so the stuck key's shrink
	// gets the 30 s floor of the budget, which it needs all of.
	cfg.Contract.Refusals = model.RefusalsUntested
	var shrinking []string
	cfg.Progress = func(p stress.Progress) {
		if p.Shrinking != "" && (len(shrinking) == 0 || shrinking[len(shrinking)-1] != string(p.Shrinking)) {
			shrinking = append(shrinking, string(p.Shrinking))
			t.Logf("%s: shrinking %s after %d plans", p.Elapsed.Round(time.Second), p.Shrinking, p.Plans)
		}
	}
	start := time.Now()
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run took %s: %d plans, %d executions; notes %q", time.Since(start).Round(time.Second), res.Searched, res.Executions, res.Notes)
	restart := model.Step{Kind: model.StepRestart}
	want := map[checks.ID][]model.Step{
		checks.WrongStatus: {stresstest.Burst(stresstest.Call("A", "k1", 0), stresstest.Call("A", "k1", 1))},
		checks.StuckAction: {stresstest.Faulted("A", "k1", model.FaultCrash), restart, stresstest.Call("A", "k1", 0)},
		checks.NoAnswer:    {stresstest.Burst(stresstest.Call("A", "k1", 0), stresstest.Call("A", "k1", 0))},
	}
	seen := map[checks.ID]bool{}
	for _, f := range res.Failures {
		t.Logf("%s (%s): not minimal %v, shrunk in %s of %s, fired %v:\n%s", f.Check, f.Bug, f.NotMinimal, f.Shrink.Round(time.Millisecond), f.Budget, f.Checks(), f.Plan)
		steps, ok := want[f.Check]
		if !ok || seen[f.Check] {
			t.Errorf("reported %s (%s) beside the three bugs", f.Check, f.Bug)
			continue
		}
		seen[f.Check] = true
		if f.NotMinimal {
			t.Errorf("%s: not minimal", f.Check)
		}
		if got := stresstest.Skeleton(f.Plan).String(); got != stresstest.Skeleton(model.Plan{Steps: steps}).String() {
			t.Errorf("%s: minimal plan\n%swant\n%s", f.Check, f.Plan, model.Plan{Steps: steps})
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s not reported (verdict %s, %v)", id, res.Verdict, res.Err)
		}
	}
}
