package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/idemstress/idemstress/internal/linear"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// overlapping reports whether two calls of an action were in flight at
// the same time (model.Overlap): such calls have no order of their own,
// and porcupine searches every order real time allows.
func overlapping(ops []model.Op) bool {
	for i := range ops {
		for j := i + 1; j < len(ops); j++ {
			if model.Overlap(ops[i], ops[j]) {
				return true
			}
		}
	}
	return false
}

// linearizabilityTimeout bounds porcupine's search for one action.
const linearizabilityTimeout = 10 * time.Second

// linearizability judges an action whose calls overlapped (IDEM-013).
func linearizability(in Input, a model.Action, ops []model.Op) []Violation {
	c := in.Contract
	res, _ := linear.Linearizable(c, ops, linearizabilityTimeout)
	switch res {
	case porcupine.Illegal:
		calls := make([]string, len(ops))
		for i, op := range ops {
			calls[i] = fmt.Sprintf("%s got %s", op.Call, op.Out)
		}
		detail := fmt.Sprintf("action %s: %s", a, strings.Join(calls, "; "))
		for _, op := range ops {
			if v, leaked := leakedConflict(in, a, op, "; "+detail); leaked && !anyOK(ops) {
				return []Violation{v}
			}
		}
		if v, ok := orderFree(c, a, ops, detail); ok {
			return []Violation{v}
		}
		return []Violation{violation(NotLinearizable, a, "no order of the action's concurrent calls explains their answers", detail)}
	case porcupine.Unknown:
		return []Violation{violation(NotLinearizable, a, "undecided, the search for an order timed out",
			fmt.Sprintf("action %s: %d calls, no verdict within %s", a, len(ops), linearizabilityTimeout))}
	}
	return nil
}

// orderFree names the mistake of a non-linearizable action when it shows
// whatever order the calls took: two ok answers with payloads that are not
// equivalent (one of them was a changed payload accepted; under
// changed_payload: replayed that is the replay), ok answers with
// different IDs, or a conflict for a payload equivalent to every accepted
// one (under replayed: for any payload), or an answer no state allows. The same mistake made one call after
// another gets the same check, so a failing burst can shrink to a
// sequential plan.
func orderFree(c model.Contract, a model.Action, ops []model.Op, detail string) (Violation, bool) {
	var oks []model.Op
	for _, op := range ops {
		switch op.Out.Kind {
		case model.OK:
			oks = append(oks, op)
		case model.Other, model.Invalid:
			// No state allows it (a 2xx without an ID, a 404, invalid
			// for a call with a key): wrong in every order.
			return ruleViolation(c, reference.RuleWrongStatus, op, a), true
		}
	}
	for _, o := range oks[min(1, len(oks)):] {
		if !c.ChangedReplayed && !payloads.Equivalent(c, oks[0].Body, o.Body) {
			return brokenRule(reference.RuleChangedPayloadAccepted, a, detail), true
		}
	}
	for _, o := range oks[min(1, len(oks)):] {
		if o.Out.ID != oks[0].Out.ID {
			return brokenRule(reference.RuleUnstableID, a, detail), true
		}
	}
	if len(oks) > 0 {
		for _, op := range ops {
			if op.Out.Kind == model.Conflict && payloads.Equivalent(c, oks[0].Body, op.Body) {
				return brokenRule(reference.RuleEquivalentRejected, a, detail), true
			}
		}
		for _, op := range ops {
			// Under replayed no state allows a conflict once the action is made.
			if op.Out.Kind == model.Conflict && c.ChangedReplayed {
				return brokenRule(reference.RuleChangedPayloadRefused, a, detail), true
			}
		}
	}
	return Violation{}, false
}

func anyOK(ops []model.Op) bool {
	for _, op := range ops {
		if op.Out.Kind == model.OK {
			return true
		}
	}
	return false
}
