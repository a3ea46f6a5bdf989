package gen_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
)

// Faults are drawn only when the world has them; a crash is always on the
// first call of an action with a key, and a restart step follows it.
func TestPlanFaults(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults = []model.Fault{model.FaultLoseReply, model.FaultCrash}
	w.Restart = true
	rapid.Check(t, func(t *rapid.T) {
		p := gen.Plan(w).Draw(t, "plan")
		called := map[model.Action]bool{}
		for i, s := range p.Steps {
			for _, c := range s.Calls {
				if c.Fault != model.FaultNone {
					if s.Kind != model.StepCall {
						t.Fatalf("a fault in a %s step:\n%s", s.Kind, p)
					}
				}
				if c.Fault == model.FaultCrash {
					if c.NoKey || called[c.Action()] {
						t.Fatalf("a crash on a call that writes nothing to interrupt:\n%s", p)
					}
					if i+1 == len(p.Steps) || p.Steps[i+1].Kind != model.StepRestart {
						t.Fatalf("a crash without a restart after it:\n%s", p)
					}
				}
				called[c.Action()] = true
			}
		}
	})
	// That every kind is drawn at all is counted over fixed seeds, not over
	// rapid's random cases (20 of them under -short drew no crash once).
	seen, restarts := map[model.Fault]int{}, 0
	for seed := range 200 {
		for _, s := range gen.Plan(w).Example(seed).Steps {
			if s.Kind == model.StepRestart {
				restarts++
			}
			for _, c := range s.Calls {
				seen[c.Fault]++
			}
		}
	}
	if seen[model.FaultLoseReply] == 0 || seen[model.FaultCrash] == 0 || restarts == 0 {
		t.Errorf("drawn over 200 seeds: %v faults, %d restarts; want some of each", seen, restarts)
	}
	rapid.Check(t, func(t *rapid.T) {
		for _, s := range gen.Plan(gen.DefaultWorld()).Draw(t, "plan").Steps {
			if s.Kind == model.StepRestart || s.Calls[0].Fault != model.FaultNone {
				t.Fatalf("a fault drawn from a world without faults: %s", s)
			}
		}
	})
}
