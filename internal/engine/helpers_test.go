package engine

import "github.com/idemstress/idemstress/internal/model"

// c1 and the helpers below write plans by hand for the engine's tests.
func c1(tenant, key string, variant int) model.Call {
	return model.Call{Tenant: tenant, Key: key, Variant: variant}
}

func seqOf(calls ...model.Call) []model.Step {
	var steps []model.Step
	for _, c := range calls {
		steps = append(steps, model.Step{Kind: model.StepCall, Calls: []model.Call{c}})
	}
	return steps
}

func burstOf(calls ...model.Call) model.Step { return model.Step{Kind: model.StepBurst, Calls: calls} }

var restartStep = model.Step{Kind: model.StepRestart}

func planOf(steps ...[]model.Step) model.Plan {
	var p model.Plan
	for _, s := range steps {
		p.Steps = append(p.Steps, s...)
	}
	return p
}

func one(s model.Step) []model.Step { return []model.Step{s} }
