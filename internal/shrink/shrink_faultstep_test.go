package shrink

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// Every smaller plan shrinking tries keeps a fault step whole, its fault
// and its target, or drops it: a candidate with a fault step that names
// nothing could not run (the demo's keys-in-redis row once stopped so).
func TestShrinkKeepsFaultSteps(t *testing.T) {
	dep := model.Step{Kind: model.StepFault, Fault: model.FaultDepRestart, Target: "redis"}
	call := func(key string, v int) model.Step {
		return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "B", Key: key, Variant: v, Encoding: 2}}}
	}
	p := model.Plan{Steps: []model.Step{call("k2", 1), call("k3", 0), dep, call("k2", 1)}}
	plans := append(Candidates(p), Renamed(p), WithKey(p, "k2", "k1"))
	if len(plans) < 3 {
		t.Fatalf("%d candidates", len(plans))
	}
	for _, q := range plans {
		for _, s := range q.Steps {
			if s.Kind == model.StepFault && (s.Fault != dep.Fault || s.Target != dep.Target) {
				t.Errorf("candidate %s has fault step %+v", q.Compact(), s)
			}
		}
	}
}
