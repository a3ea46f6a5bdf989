package gen_test

import (
	"testing"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
)

// A deal is in a plan only when the plan carries that very fault: on a
// call, as a restart step, or as the fault step on its own dependency.
func TestDealIn(t *testing.T) {
	call := func(f model.Fault) model.Step {
		return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: f}}}
	}
	dep := func(f model.Fault, target string) model.Step {
		return model.Step{Kind: model.StepFault, Fault: f, Target: target}
	}
	plan := model.Plan{Steps: []model.Step{call(model.FaultCrash), {Kind: model.StepRestart}, dep(model.FaultDepRestart, "redis"), call(model.FaultNone), {Kind: model.StepRestart}}}
	for _, tc := range []struct {
		d    gen.Deal
		want bool
	}{
		{gen.Deal{Fault: model.FaultCrash}, true},
		{gen.Deal{Fault: model.FaultDepRestart, Target: "redis"}, true},
		{gen.Deal{Fault: model.FaultLoseReply}, false},
		{gen.Deal{Fault: model.FaultDepRestart, Target: "keys"}, false},
		{gen.Deal{Fault: model.FaultDepCrash, Target: "redis"}, false},
	} {
		if got := tc.d.In(plan); got != tc.want {
			t.Errorf("%v in the plan: %v, want %v", tc.d, got, tc.want)
		}
	}
	restart := gen.Deal{Fault: model.FaultRestart}
	if !restart.In(plan) {
		t.Errorf("restart not found in a plan with a restart step of its own")
	}
	if restart.In(model.Plan{Steps: []model.Step{call(model.FaultNone)}}) {
		t.Errorf("restart found in a plan without a restart step")
	}
	// The restart Plan puts after a crash starts a killed replica: it is
	// not the graceful restart the deal asks for.
	if restart.In(model.Plan{Steps: plan.Steps[:2]}) {
		t.Errorf("restart found in a plan whose only restart follows a crash")
	}
}
