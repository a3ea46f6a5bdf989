package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
)

// crashAtCommit: a call that crashes the service at "after commit 1"
// leaves its key in flight for good, so the action's next call after the
// restart is answered in_flight past the recovery time (IDEM-012). At any
// other point, or without a crash, the service recovers.
func crashAtCommit(c model.Contract, plan model.Plan) []checks.Violation {
	stuck := map[model.Action]bool{}
	var vs []checks.Violation
	for _, st := range plan.Steps {
		for _, call := range st.Calls {
			a := c.ActionOf(call)
			switch {
			case call.NoKey:
			case call.Fault == model.FaultCrashAt && call.Point == "after commit 1":
				stuck[a] = true
			case stuck[a]:
				vs = append(vs, checks.Violation{Check: checks.StuckAction, Message: "IDEM-012 stuck action", Action: a})
				stuck[a] = false
			}
		}
	}
	return vs
}

// Issue 28.6: a plan that restarts the service goes straight to
// idemstress's own shrink, which ends at the minimal plan (faults,
// noise, re-encodings and a later point stripped) on every seed, in a
// few dozen executions where rapid's random candidates took hundreds.
func TestShrinkRestartingPlanSkipsRapid(t *testing.T) {
	points := []string{"before statement 1", "after statement 1", "after commit 1", "after commit 2", "after tx 1"}
	for _, tc := range []struct {
		name string
		rule rule
		want model.Plan
	}{
		{"keys kept in memory", memoryKeys, planOf(seqOf(a1), one(restartStep), seqOf(a1))},
		{"a key stuck after a crash at a point", crashAtCommit, planOf(
			seqOf(model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrashAt, Point: "after commit 1"}), one(restartStep), seqOf(a1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := engineConfig(300)
			cfg.World.Restart, cfg.World.FollowUp = true, true
			cfg.World.Faults, cfg.World.Points = []model.Fault{model.FaultLoseReply, model.FaultCrashAt}, points
			cfg.World.Noise = []model.Noise{model.NoiseQuery, model.NoiseHeaderCase}
			cfg.ShrinkTime, cfg.MaxBugs = time.Minute, 1
			for seed := uint64(1); seed <= 4; seed++ {
				s := &scripted{rules: []rule{tc.rule}}
				r := runEngine(t, cfg, s, seed)
				i := slices.IndexFunc(r.bugs, func(b *findings.Failure) bool { return b.Plan.String() == tc.want.String() })
				if i < 0 {
					t.Fatalf("seed %d: rows %q, want one with the minimal plan %s", seed, bugNames(r.bugs), tc.want.Compact())
				}
				b := r.bugs[i]
				if b.NotMinimal {
					t.Errorf("seed %d: the row %s is marked not minimal", seed, b.Bug)
				}
				// The search ends at the first bug: every execution
				// beyond its plans shrank that bug.
				if spent := s.tries - r.searched; spent > 150 {
					t.Errorf("seed %d: %d executions to shrink %s to %s, want at most 150 (rapid took 600 to 4,800)", seed, spent, b.Bug, b.Plan.Compact())
				} else {
					t.Logf("seed %d: %d executions to shrink %s from %s", seed, spent, b.Bug, b.Original.Compact())
				}
			}
		})
	}
}
