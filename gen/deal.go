package gen

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// A Deal is one fault a world can draw, as a plan carries it: a single
// call's fault, a restart step, or a fault step on a dependency (Target).
// A run deals each of its world's faults to a plan of its own first
// (internal/engine), so that no kind goes undrawn in a short run by chance.
type Deal struct {
	Fault  model.Fault
	Target string // a fault step's dependency; "" otherwise
	// Point is the point a fault that lands at one names (crash-at), or
	// the failure one that names its failure deals (db-error): each the
	// world has is dealt a plan of its own, so that a run tries every one.
	Point string
	// Retried asks for the fault's transition whole: its call followed,
	// later in the plan, by a call of the same action without a fault
	// (World.FollowUp), as a crash is by its restart. Alone asks for the
	// fault with no such retry: what it leaves behind by itself (a crash's
	// partial effect), whose plan shrinks to no retry.
	Retried, Alone bool
}

// Deals lists the faults world w can draw, in the order the world names
// them: its call faults, then restart, then its fault steps. A fault that
// lands at a point is dealt once a point, a first call's and then a
// retry's (World.RetryPoints), with its retry under FollowUp;
// one that names its failure once alone, then once a failure with its
// retry.
// Under FollowUp another call fault that leaves its call's fate open
// (model.FaultKind.Retried) is dealt twice, alone and then with its
// retry: a short run tries each transition whole, and a bug the fault
// shows by itself is found, and shrunk, without the retry.
func Deals(w World) []Deal {
	var ds []Deal
	for _, f := range w.callFaults() {
		k, _ := faultkind.KindOf(f)
		if ps := w.pointsOf(f); len(ps) > 0 {
			// A failure a fault names shows some bugs alone (a partial
			// effect), whatever the failure: one deal alone, then each
			// failure with its retry.
			if k.Coded && w.FollowUp && k.Retried {
				ds = append(ds, Deal{Fault: f, Alone: true})
			}
			for _, p := range ps {
				ds = append(ds, Deal{Fault: f, Point: p, Retried: w.FollowUp && k.Retried})
			}
			for _, p := range w.RetryPoints {
				if k.AtPoint {
					ds = append(ds, Deal{Fault: f, Point: coverage.RetryPoint(p), Retried: w.FollowUp && k.Retried})
				}
			}
			continue
		}
		if w.FollowUp && k.Retried {
			ds = append(ds, Deal{Fault: f, Alone: true}, Deal{Fault: f, Retried: true})
			continue
		}
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

// World is w as the plan dealt d is drawn from. A call fault's world
// plans that fault alone, so that a plan carries it as often as a world
// of one kind does (about one plan in three, where a world of every kind
// has one of thirteen in about one plan of a hundred); a fault that names
// a point (or a failure) names d's on every call that draws it, a retry's
// on the retry the generator composes for it, so that the dealt point is
// in the plan whenever its fault is, however many points the world has
// (drawn by chance, the rarest of sixteen was in about one plan of 500,
// and a default run left one or two untried). The plan is still rapid's
// first case from its seed in this world, and rapid shrinks it in this
// world, which keeps the point: it is the deal's.
func (d Deal) World(w World) World {
	if !slices.Contains(w.Faults, d.Fault) {
		return w // a restart or a fault step
	}
	w.Faults = []model.Fault{d.Fault}
	if d.Point == "" {
		return w
	}
	switch k, _ := faultkind.KindOf(d.Fault); {
	case k.AtPoint:
		if p, ok := coverage.OfRetry(d.Point); ok {
			w.Points, w.RetryPoints = nil, []string{p}
		} else {
			w.Points, w.RetryPoints = []string{d.Point}, nil
		}
	case k.Coded:
		w.Codes = []string{d.Point}
	}
	return w
}

// In reports whether plan p carries the fault: a call with it (as Plan
// keeps it, on the first call of an action), a restart step drawn as one
// (not the one Plan puts after a crash, which starts a killed replica
// instead of stopping a running one), or the fault step on its
// dependency.
func (d Deal) In(p model.Plan) bool {
	for i, s := range p.Steps {
		switch {
		case d.Fault == model.FaultRestart:
			if s.Kind == model.StepRestart && (i == 0 || !crashing(p.Steps[i-1])) {
				return true
			}
		case s.Kind == model.StepFault:
			if s.Fault == d.Fault && s.Target == d.Target {
				return true
			}
		case slices.ContainsFunc(s.Calls, func(c model.Call) bool { return c.Fault == d.Fault && (d.Point == "" || c.Point == d.Point) }):
			again := retried(p.Steps[i+1:], s.Calls[0])
			if (!d.Retried || again) && (!d.Alone || !again) {
				return true
			}
		}
	}
	return false
}

// retried reports whether steps hold a single call of c's action with no
// fault and c's payload: a retry after the fault, which the interpreter
// follows up (a burst's calls are not polled past a crash's recovery
// time). A call that breaks a payload rule, or sends another payload or
// another action's unique values, is refused before it reaches the key,
// and shows nothing of what the fault left: a plan whose crash was
// "retried" only by a broken call left stuck-in-flight uncaught.
func retried(steps []model.Step, c model.Call) bool {
	for _, s := range steps {
		r := s.Calls
		if s.Kind == model.StepCall && r[0].Fault == model.FaultNone && !r[0].NoKey && r[0].Action() == c.Action() &&
			r[0].Broken == 0 && r[0].Variant == c.Variant && r[0].UniqueOf == c.UniqueOf {
			return true
		}
	}
	return false
}

// crashing reports whether step s is a call that crashes its replica.
func crashing(s model.Step) bool {
	return s.Kind == model.StepCall && faultkind.Crashes(s.Calls[0].Fault)
}
