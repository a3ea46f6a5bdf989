package usable

import (
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// Clues are what the run's answers say about whether its request is
// usable at all: a run whose request is wrong (a wrong path, a required
// field missing, a key header the service does not read, an ID pointer
// that points at nothing) shows it in its answers, and what it shows is
// then the contract's mistake, not the service's bug. A value fed by
// histories (Add) and read at the run's end (Problem): no I/O.
type Clues struct {
	// ids says whether any ok answer of the run carried an ID, and
	// noID is the first 2xx answer without one: when no answer ever had
	// an ID, the contract's pointer is wrong, not the service.
	ids  bool
	noID *model.Op
	// unusable is the first call with a key answered in a way no state
	// allows: with no ok answer in the run, the request is wrong, not the
	// service.
	unusable *model.Op
	// serverErrors says a call with a key was answered with a server
	// error (Outcome.ServerError): the service took the request, even
	// with no ok answer.
	serverErrors bool
	// baseOK says a call with the base payload was answered ok, and refused
	// is the first call with another variant or encoding that got a 4xx
	// anyway: then that input, not the service, is what is wrong (refusal).
	baseOK  bool
	refused *model.Op
	// unusableNS and refusedNS are the namespaces of unusable's and
	// refused's plans: what their keys and tenants were sent as.
	unusableNS, refusedNS model.Namespace
}

// Add is k with one execution's history, tried in namespace ns under
// contract c, taken in.
func (k Clues) Add(c model.Contract, ns model.Namespace, h model.History) Clues {
	// A call after a broken one of its action may get the broken one's
	// refusal replayed: the service's mistake (IDEM-017), not its input's.
	brokenBefore := map[model.Action]bool{}
	for i, op := range h.Ops {
		a := c.ActionOf(op.Call)
		after := brokenBefore[a]
		brokenBefore[a] = after || op.Call.Broken > 0
		k.serverErrors = k.serverErrors || op.Out.ServerError() && !op.Call.NoKey
		switch {
		case op.Out.Kind == model.OK:
			k.ids = true
			k.baseOK = k.baseOK || op.Call.Variant == 0 && op.Call.Broken == 0
		case k.noID == nil && wantedID(c, op):
			k.noID = &h.Ops[i]
		case k.refused == nil && refusedInput(op) && !after && !replayDue(c, h, op):
			k.refused, k.refusedNS = &h.Ops[i], ns
		}
	}
	if k.unusable == nil {
		if k.unusable = firstUnusable(c, h); k.unusable != nil {
			k.unusableNS = ns
		}
	}
	return k
}

// firstUnusable is the first call with a key whose answer no state of its
// action allows, whatever the service: outside the contract (a 404, a 2xx
// without an ID), invalid although it carried its key, or conflict as the
// first call of its action. Once any ok answer came, these are the
// service's bugs; while none came, they are the run's first clue that the
// request is wrong.
func firstUnusable(c model.Contract, h model.History) *model.Op {
	seen := map[model.Action]bool{}
	for i, op := range h.Ops {
		a := c.ActionOf(op.Call)
		first := !seen[a]
		seen[a] = true
		if op.Call.NoKey || op.Out.Err != "" || op.Call.Broken > 0 {
			continue // a broken call is refused on purpose
		}
		if k := op.Out.Kind; k == model.Other || k == model.Invalid || (k == model.Conflict && first) {
			return &h.Ops[i]
		}
	}
	return nil
}

// wantedID reports whether an answer met a created or replayed matcher
// but carried no resource ID there (the contract's ID pointer may be
// wrong).
func wantedID(c model.Contract, op model.Op) bool {
	return op.Out.Kind == model.Other && reference.Read(c, model.Answer{Status: op.Out.Status, Body: op.Out.Body}).MissingID()
}

// RefusedUnanswered reports whether calls were refused before any ok
// answer: a failure may then be the request's, not the service's, and the
// search stops hunting.
func (k Clues) RefusedUnanswered() bool {
	return !k.ids && k.unusable != nil
}

// Problem is what the clues make of the request at the run's end.
type Problem int

const (
	// RequestUsable: nothing says the request is wrong.
	RequestUsable Problem = iota
	// IDNowhere: no ok answer of the run had an ID where the contract
	// says (the error quotes noID).
	IDNowhere
	// NoUsableAnswer: no ok answer, and one that no state allows (the
	// error quotes unusable).
	NoUsableAnswer
	// InputRefused: a generated input was refused although the base
	// payload was taken (the run asks the service which input).
	InputRefused
)

// Problem is the contract mistake the clues show at the end of a run that
// found bugs bugs; stopped says the run ended on an infrastructure failure
// and interrupted that its context ended (then the target cannot be asked
// again which input it refused). note says the request looked wrong while
// bugs were found where the service answered 5xx: those bugs are real and
// reported, and the odd answer is a note (UnusableNote).
func (k Clues) Problem(bugs int, stopped, interrupted bool) (p Problem, note bool) {
	if stopped {
		// The stop is the verdict (exit 3), not a contract field.
		return RequestUsable, false
	}
	if k.noID != nil && !k.ids {
		return IDNowhere, false
	}
	if k.RefusedUnanswered() {
		// No ok answer, and one no state allows: the request is wrong,
		// and what a wrong request shows (a keyless call's 404) is no
		// bug. But where the service answered 5xx, it took the request,
		// and the bugs found then (rows stored behind every 500) are
		// real.
		if bugs == 0 || !k.serverErrors {
			return NoUsableAnswer, false
		}
		note = true
	}
	if k.refused != nil && k.baseOK && !interrupted {
		return InputRefused, note
	}
	return RequestUsable, note
}
