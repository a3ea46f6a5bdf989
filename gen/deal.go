package gen

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// A Deal is one fault a world can draw, as a plan carries it: a single
// call's fault, a restart step, or a fault step on a dependency (Target).
// A run deals each of its world's faults to a plan of its own first
// (stress), so that no kind goes undrawn in a short run by chance.
type Deal struct {
	Fault  model.Fault
	Target string // a fault step's dependency; "" otherwise
}

// Deals lists the faults world w can draw, in the order the world names
// them: its call faults, then restart, then its fault steps.
func Deals(w World) []Deal {
	var ds []Deal
	for _, f := range w.Faults {
		ds = append(ds, Deal{Fault: f})
	}
	if w.Restart {
		ds = append(ds, Deal{Fault: model.FaultRestart})
	}
	for _, s := range w.StepFaults {
		ds = append(ds, Deal{Fault: s.Fault, Target: s.Target})
	}
	return ds
}

// In reports whether plan p carries the fault: a call with it (as Plan
// keeps it, on the first call of an action), a restart step, or the
// fault step on its dependency.
func (d Deal) In(p model.Plan) bool {
	return slices.ContainsFunc(p.Steps, func(s model.Step) bool {
		switch {
		case d.Fault == model.FaultRestart:
			return s.Kind == model.StepRestart
		case s.Kind == model.StepFault:
			return s.Fault == d.Fault && s.Target == d.Target
		}
		return slices.ContainsFunc(s.Calls, func(c model.Call) bool { return c.Fault == d.Fault })
	})
}
