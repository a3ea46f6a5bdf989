package shrink

import (
	"cmp"
	"slices"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// InSequence is plan with every burst's calls sent one after another;
// steps without calls (a restart) stay as they are.
func InSequence(plan model.Plan) model.Plan {
	var q model.Plan
	for _, s := range plan.Steps {
		if len(s.Calls) == 0 {
			q.Steps = append(q.Steps, s)
		}
		for _, c := range s.Calls {
			q.Steps = append(q.Steps, model.Step{Kind: model.StepCall, Calls: []model.Call{c}})
		}
	}
	return q
}

// Ingredient is something a plan may do beyond plain calls of one
// tenant's actions with the base payload, one after another, and how to
// take it out; input says it is something the calls send, not how they
// are scheduled or faulted.
type Ingredient struct {
	Name  string
	Input bool
	Strip func(model.Plan) model.Plan
}

var Ingredients = []Ingredient{
	{"changed payload", true, EachCall(func(c *model.Call) { c.Variant = 0 })},
	{"re-encoding", true, EachCall(func(c *model.Call) { c.Encoding = 0 })},
	{"request noise", true, EachCall(func(c *model.Call) { c.Noise = model.NoiseNone })},
	{"key shape", true, EachCall(func(c *model.Call) { c.Key = model.PlainKey(c.Key) })},
	{"other tenant", true, OneTenant},
	{"fault", false, EachCall(func(c *model.Call) { c.Fault = model.FaultNone })},
	{"burst", false, InSequence},
	{"restart", false, WithoutRestarts},
}

// EachCall is a strip that changes every call of a plan with f.
func EachCall(f func(*model.Call)) func(model.Plan) model.Plan {
	return func(p model.Plan) model.Plan {
		var q model.Plan
		for _, s := range p.Steps {
			s.Calls = slices.Clone(s.Calls)
			for i := range s.Calls {
				f(&s.Calls[i])
			}
			q.Steps = append(q.Steps, s)
		}
		return q
	}
}

// OneTenant sends every call of a plan as its first call's tenant.
func OneTenant(p model.Plan) model.Plan {
	first := ""
	for _, s := range p.Steps {
		for _, c := range s.Calls {
			first = cmp.Or(first, c.Tenant)
		}
	}
	return EachCall(func(c *model.Call) { c.Tenant = first })(p)
}

// WithoutRestarts is a plan without its restarts and its dependencies'
// faults.
func WithoutRestarts(p model.Plan) model.Plan {
	var q model.Plan
	for _, s := range p.Steps {
		if s.Kind != model.StepRestart && s.Kind != model.StepFault {
			q.Steps = append(q.Steps, s)
		}
	}
	return q
}

// Has reports whether a plan has an ingredient: its strip changes it.
func (in Ingredient) Has(p model.Plan) bool { return in.Strip(p).String() != p.String() }

// SharedIngredients are the input ingredients both plans have, and extra
// the ingredients f has and r lacks.
func SharedIngredients(r, f model.Plan) (shared, extra []Ingredient) {
	for _, in := range Ingredients {
		switch {
		case in.Input && in.Has(r) && in.Has(f):
			shared = append(shared, in)
		case in.Has(f) && !in.Has(r):
			extra = append(extra, in)
		}
	}
	return shared, extra
}

// StripAll is plan with every ingredient of ins taken out.
func StripAll(plan model.Plan, ins []Ingredient) model.Plan {
	for _, in := range ins {
		plan = in.Strip(plan)
	}
	return plan
}

// NumIngredients counts the ingredients a plan has.
func NumIngredients(p model.Plan) int {
	n := 0
	for _, in := range Ingredients {
		if in.Has(p) {
			n++
		}
	}
	return n
}

// Names are the ingredients' names.
func Names(ins []Ingredient) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.Name)
	}
	return out
}

// WithoutRetries is plan p without the single calls that retry, with no
// fault and the same payload, an earlier call that carried a fault that
// leaves its fate open (model.FaultKind.Retried).
func WithoutRetries(p model.Plan) model.Plan {
	faultedActions := map[model.Action]int{} // the faulted call's variant, plus one
	var q model.Plan
	for _, s := range p.Steps {
		if s.Kind == model.StepCall && len(s.Calls) == 1 {
			c := s.Calls[0]
			if c.Fault == model.FaultNone && !c.NoKey && faultedActions[c.Action()] == c.Variant+1 {
				continue
			}
			if k, _ := faultkind.KindOf(c.Fault); k.Retried && !c.NoKey {
				faultedActions[c.Action()] = c.Variant + 1
			}
		}
		q.Steps = append(q.Steps, s)
	}
	return q
}

// Faulted reports whether a call of plan p carries a fault.
func Faulted(p model.Plan) bool {
	for _, s := range p.Steps {
		for _, c := range s.Calls {
			if c.Fault != model.FaultNone {
				return true
			}
		}
	}
	return false
}

// Retries counts the calls of plan p that retry a faulted call
// (withoutRetries).
func Retries(p model.Plan) int { return len(p.Steps) - len(WithoutRetries(p).Steps) }
