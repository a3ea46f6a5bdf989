// Package plantest writes plans by hand for tests of the packages that
// edit and judge them (internal/shrink, bugid, findings, engine): a call,
// a sequence of calls, a burst, a restart, and a plan made of those.
package plantest

import "github.com/idemstress/idemstress/internal/model"

// Call is tenant's call with key and payload variant.
func Call(tenant, key string, variant int) model.Call {
	return model.Call{Tenant: tenant, Key: key, Variant: variant}
}

// Single is a step that sends c alone.
func Single(c model.Call) model.Step {
	return model.Step{Kind: model.StepCall, Calls: []model.Call{c}}
}

// Seq is a step for each call, sent one after another.
func Seq(calls ...model.Call) []model.Step {
	var steps []model.Step
	for _, c := range calls {
		steps = append(steps, Single(c))
	}
	return steps
}

// Burst is a step that sends calls at once.
func Burst(calls ...model.Call) model.Step {
	return model.Step{Kind: model.StepBurst, Calls: calls}
}

// Restart is a step that restarts the service.
var Restart = model.Step{Kind: model.StepRestart}

// One is a step as the steps of a plan part.
func One(s model.Step) []model.Step { return []model.Step{s} }

// Plan is the steps of parts, in order.
func Plan(parts ...[]model.Step) model.Plan {
	var p model.Plan
	for _, s := range parts {
		p.Steps = append(p.Steps, s...)
	}
	return p
}
