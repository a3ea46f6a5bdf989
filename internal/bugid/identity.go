package bugid

import (
	"fmt"
	"slices"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// A bug is told apart from another by what went wrong, not by its check
// alone: the check and the transition that broke. A 4xx to a re-encoded
// payload answered in sequence (IDEM-008, contract trouble) and a 500 to
// the loser of a burst (IDEM-008, a race) are two bugs; a first report of
// the one must never make the other "already known".

// Transition is the kind of step in which a violation's action broke.
type Transition string

const (
	// InSequence: the action's calls were sent one after another.
	InSequence Transition = "sequence"
	// InBurst: some call of the action was released in a burst.
	InBurst Transition = "burst"
	// AfterRestart: some call of the action followed a restart or a
	// crash of the target.
	AfterRestart Transition = "restart"
	// AnyTransition: a check of a sink's events whose mistake is the same
	// whichever way the action's calls came (see Of).
	AnyTransition Transition = "any transition"
)

// ID is a bug's identity: its check, the transition that broke, for a
// wrong status the class of the answer (a 5xx is a crash of the request,
// any other wrong status a misreading of the contract), and for a check of
// committed rows its message, which names the table (a duplicate in the
// outbox on every retry and a duplicate ticket under a burst are two
// bugs). Answer checks leave the message out: one tenant leak is seen
// through a conflict or through a replayed ID, depending on the plan. A
// sink's duplicate event or renamed retry is its message, the sink's, in
// any transition (eventChecks).
type ID struct {
	Check      checks.ID
	Transition Transition
	Status     string
	Rows       string
}

func (b ID) String() string {
	s := fmt.Sprintf("%s in %s", b.Check, b.Transition)
	if b.Status != "" {
		s += " (" + b.Status + ")"
	}
	if b.Rows != "" {
		s = fmt.Sprintf("%s in %s", b.Rows, b.Transition)
	}
	return s
}

// rowChecks judge committed rows; their messages name the table.
var rowChecks = []checks.ID{checks.DuplicateEffect, checks.MissingEffect, checks.RejectedEffect, checks.StrayWrite, checks.FieldsDiffer, checks.BrokenReference}

// eventChecks count a committed action's events at a sink: a second event
// (a replay's webhook, sent again in sequence, by the loser of a burst,
// after a restart or for a delivered-twice request: each is a second call
// of the action) and a retry under a new ID (after the sink's own
// refusals, which every plan meets) are one mistake whichever transition
// showed them, as the transitions only give the action its second chance.
// Their messages name the sink. A phantom (IDEM-019) and a lost event
// (IDEM-022) keep the transition: a webhook sent before a commit that a
// crash rolls back and one sent for a refused call are two bugs.
var eventChecks = []checks.ID{checks.DuplicateDelivery, checks.EventIDChanged}

// Of is the identity of violation v of a trial of plan with history
// hist. The calls that count are those of v's action; a violation with no
// action of its own (a keyless call's, a stray row's) takes the whole plan.
func Of(c model.Contract, plan model.Plan, hist model.History, v checks.Violation) ID {
	mine := func(call model.Call) bool {
		if call.NoKey {
			return v.Action.Key == "" && call.Tenant == v.Action.Tenant
		}
		return c.ActionOf(call) == v.Action
	}
	if !slices.ContainsFunc(plan.Steps, func(s model.Step) bool { return slices.ContainsFunc(s.Calls, mine) }) {
		mine = func(model.Call) bool { return true }
	}
	id := ID{Check: v.Check, Transition: transitionOf(plan, mine)}
	if v.Check == checks.StuckAction && id.Transition == InBurst && restartedBefore(plan, mine) {
		// A stuck key is a recovery bug: the crash or restart before the
		// retry is what broke, whether the retry came alone or in a burst.
		id.Transition = AfterRestart
	}
	if slices.Contains(rowChecks, v.Check) {
		id.Rows = v.Message
	}
	if slices.Contains(eventChecks, v.Check) {
		id.Transition, id.Rows = AnyTransition, v.Message
	}
	if v.Check == checks.WrongStatus {
		id.Status = "not 5xx"
		if slices.ContainsFunc(hist.Ops, func(op model.Op) bool { return mine(op.Call) && op.Out.ServerError() }) {
			id.Status = "5xx"
		}
	}
	return id
}

// transitionOf is the transition the calls that mine selects went
// through: a burst outranks a restart (a race is what a burst tests), a
// restart outranks a plain sequence.
func transitionOf(plan model.Plan, mine func(model.Call) bool) Transition {
	t, restarted := InSequence, false
	for _, s := range plan.Steps {
		if s.Kind == model.StepRestart || s.Kind == model.StepFault {
			// A dependency's restart or crash is a restart of what the
			// service keeps.
			restarted = true
		}
		for _, call := range s.Calls {
			if !mine(call) {
				if faultkind.Crashes(call.Fault) {
					restarted = true
				}
				continue
			}
			switch {
			case s.Kind == model.StepBurst:
				return InBurst
			case restarted:
				t = AfterRestart
			}
			if faultkind.Crashes(call.Fault) || call.Fault == model.FaultRestart {
				restarted = true
			}
		}
	}
	return t
}

// restartedBefore says whether a restart, a crash or a dependency's fault
// came before some call that mine selects.
func restartedBefore(plan model.Plan, mine func(model.Call) bool) bool {
	restarted := false
	for _, s := range plan.Steps {
		if s.Kind == model.StepRestart || s.Kind == model.StepFault {
			restarted = true
		}
		for _, call := range s.Calls {
			if restarted && mine(call) {
				return true
			}
			if faultkind.Crashes(call.Fault) {
				restarted = true
			}
		}
	}
	return false
}
