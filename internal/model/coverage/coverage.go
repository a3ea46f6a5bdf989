// Package coverage says which transitions a history exercised: the calls'
// retries, changed payloads, other tenants, bursts and refusals, the
// faults that fired and the sinks' deliveries, counted into a Coverage that
// the checks read to tell a silent check from one never exercised. It holds
// no judgement of an answer (internal/model/reference) and declares no data
// of a run (internal/model).
package coverage

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// Transition is something a plan's execution did that a check needs to have
// happened before it can judge anything: a retry, a changed payload, a key
// another tenant used too, a fault that fired. A check none of whose
// transitions happened was not exercised; its silence proves nothing.
type Transition string

const (
	// Called: a call was made at all.
	Called Transition = "call"
	// SequentialRetry: a call with an equivalent payload after an earlier
	// call of its action had ended.
	SequentialRetry Transition = "sequential-retry"
	// ChangedPayload: a call of an action an earlier call of which carried
	// a payload that is not equivalent to its own.
	ChangedPayload Transition = "changed-payload"
	// OtherTenantSameKey: a call with the key an earlier call of another
	// tenant carried, under a per-tenant key scope, where the service sees
	// that key as sent (not inside a tag that holds the tenant too).
	OtherTenantSameKey Transition = "other-tenant-same-key"
	// Keyless: a call sent without its key.
	Keyless Transition = "keyless"
	// Reencoding: a call whose payload is canonical-JSON equal to an earlier
	// call's of its action, in other bytes.
	Reencoding Transition = "re-encoding"
	// FoldedKey: a call whose key differs from an earlier call's of the same
	// tenant only by white space, case or form, which the contract tells
	// apart (keys it folds are one action: their calls are retries).
	FoldedKey Transition = "folded-key"
	// Burst: a call in flight at the same time as another call of its action.
	Burst Transition = "burst"
	// KeylessCreate: a call without its key under key_required: false
	// (Contract.KeylessCreates), an ordinary create of its own. It is
	// counted beside Keyless, and listed only where it happened, so that
	// the coverage of a contract that requires the key reads as before.
	KeylessCreate Transition = "keyless-create"
	// TakenValue: a call that sent another action's unique values
	// (Call.UniqueOf). Counted only where it happens: it needs the
	// contract's unique: and answers.taken.
	TakenValue Transition = "taken-value"
	// RefusedThenFixed: a call with a valid payload after a broken call
	// of its action (Call.Broken) had been refused.
	RefusedThenFixed Transition = "refused-then-fixed"
	// RecoveredRetry: a retry of an action a crash cut off (a call of it
	// that a fired crash touched, as the crash's kind), sent after that
	// call, whose answer settles whether the service released the key
	// within the contract's recovery time: sent past it, or answered other
	// than in_flight (the key was released). A retry answered in_flight
	// within the recovery time and never followed up settles nothing, and
	// without a recovery time nothing does. Counted only where a crash is
	// planned (NewCoverage).
	RecoveredRetry Transition = "recovered-retry"
)

// CallTransitions are the transitions of calls, in the order reports show
// them; after them come the faults that fired, each under its own name
// (Transition("crash")).
var CallTransitions = []Transition{Called, SequentialRetry, ChangedPayload, OtherTenantSameKey, Keyless, Reencoding, FoldedKey, Burst, RefusedThenFixed}

// FaultFired is the transition of a fault of kind f that fired.
func FaultFired(f model.Fault) Transition { return Transition(f) }

// PointFired is the transition of a fault of kind f that fired at point
// p of a call's database work ("crash-at after tx 1"), counted beside
// FaultFired: how many of the points learned a run tried.
func PointFired(f model.Fault, p string) Transition { return Transition(string(f) + " " + p) }

// RetryPoint is point p of a retry's database work, as a plan names it
// ("retry after statement 1"): the same action called again, with the
// same payload, after its first call completed. A retry's work differs
// from a first call's (a key-first design replays from its key row), so
// its points are learned, dealt and counted apart.
func RetryPoint(p string) string { return retryPrefix + p }

const retryPrefix = "retry "

// OfRetry is the point of a retry's work a plan's point names, and
// whether it names one (RetryPoint); p itself when it does not.
func OfRetry(p string) (string, bool) { return strings.CutPrefix(p, retryPrefix) }

// labels are the words reports use for the call transitions.
var labels = map[Transition]string{
	Called:             "calls",
	SequentialRetry:    "sequential retry",
	ChangedPayload:     "changed payload",
	OtherTenantSameKey: "other tenant same key",
	Keyless:            "keyless",
	Reencoding:         "re-encoding",
	FoldedKey:          "folded key",
	Burst:              "burst",
	KeylessCreate:      "keyless create",
	TakenValue:         "another action's unique value",
	RefusedThenFixed:   "refused then fixed",
	RecoveredRetry:     "retried after a crash",
	// The sinks' (sink.go).
	Delivered:            "deliveries",
	SinkRefused:          "refused deliveries",
	DeliveredCalledAgain: "delivery of an action called again",
	Redelivered:          "retried event",
	AwaitedEvent:         "ok answer awaiting an event",
}

// Label is how a report names the transition: "sequential retry", "crash".
func (t Transition) Label() string {
	if l, ok := labels[t]; ok {
		return l
	}
	return string(t)
}

// Coverage counts, by transition, the calls that made it (and the faults
// that fired, by kind) in one or more executions.
type Coverage map[Transition]int

// NewCoverage is a coverage with every call transition and each of the
// faults at zero, so that a report names what never happened.
func NewCoverage(faults []model.Fault) Coverage {
	c := Coverage{}
	for _, t := range CallTransitions {
		c[t] = 0
	}
	for _, f := range faults {
		c[FaultFired(f)] = 0
		if faultkind.Crashes(f) {
			c[RecoveredRetry] = 0
		}
	}
	return c
}

// Add adds other's counts to c.
func (c Coverage) Add(other Coverage) {
	for t, n := range other {
		c[t] += n
	}
}

// Transitions lists the transitions of c in report order: the call
// transitions (every one, counted or not), the sinks' (where a contract
// declares sinks), then the faults by name.
func (c Coverage) Transitions() []Transition {
	out := slices.Clone(CallTransitions)
	for _, t := range SinkTransitions {
		if _, ok := c[t]; ok {
			out = append(out, t)
		}
	}
	for _, t := range slices.Sorted(maps.Keys(c)) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Exercise is what the coverage of one execution is counted from.
type Exercise struct {
	Contract model.Contract
	// KeyInTag says the service sees the action tag where it looks for the
	// key (a {{tag}} in the URL, a header, or the payload: see
	// stress.keyInTag): the tag holds the tenant and the key in its
	// logical form, so no two tenants, and no two keys apart by white
	// space or case, ever send the service one key.
	KeyInTag bool
	History  model.History
	// Sinks are the contract's sinks, NS the namespace the execution ran
	// in (by which a delivery names its action).
	Sinks []effect.Sink
	NS    model.Namespace
}

// Exercised counts what one execution did, from what actually ran: each
// call counts once for each transition it made, and only when it got an
// answer (a lost reply's answer counts: the proxy saw it), since a call
// nobody heard back from can be judged by no rule of the model. Faults
// count when they fired.
func Exercised(in Exercise) Coverage {
	cov := Coverage{}
	calls := indexCalls(in.Contract, in.History.Ops)
	for i, op := range in.History.Ops {
		cov[Called]++
		if !answered(op) {
			continue
		}
		for _, t := range calls.transitions(in, i) {
			cov[t]++
		}
	}
	for _, ev := range in.History.Faults {
		if ev.Fired && ev.Kind != model.FaultExit {
			cov[FaultFired(ev.Kind)]++
			if ev.Point != "" {
				cov[PointFired(ev.Kind, ev.Point)]++
			}
		}
	}
	if n := recoveredRetries(in.Contract, in.History, calls.actions); n > 0 {
		cov[RecoveredRetry] += n
	}
	sinkExercised(in, calls.actions, cov)
	return cov
}

// callIndex holds each call's action and canonical body, computed once:
// Exercised compares every call with every other, and the pairs are many.
type callIndex struct {
	ops     []model.Op
	actions []model.Action
	canon   [][]byte
	// bytewise says the contract compares payloads byte for byte
	// (EquivalenceBytes), not in canonical form.
	bytewise bool
}

func indexCalls(c model.Contract, ops []model.Op) callIndex {
	x := callIndex{
		ops:      ops,
		actions:  make([]model.Action, len(ops)),
		canon:    make([][]byte, len(ops)),
		bytewise: c.Equivalence == model.EquivalenceBytes,
	}
	for i, op := range ops {
		x.actions[i] = c.ActionOf(op.Call)
		if b, err := payloads.Canonical(op.Body); err == nil {
			x.canon[i] = b
		} else {
			x.canon[i] = op.Body
		}
	}
	return x
}

// equivalent is payloads.Equivalent over the bodies of calls i and j.
func (x callIndex) equivalent(i, j int) bool {
	if x.bytewise {
		return bytes.Equal(x.ops[i].Body, x.ops[j].Body)
	}
	return bytes.Equal(x.canon[i], x.canon[j])
}

// transitions are the transitions answered call i made: what it was by
// itself (keyless, a taken value), then what it was beside the calls
// before or alongside it (pairTransitions).
func (x callIndex) transitions(in Exercise, i int) []Transition {
	call := x.ops[i].Call
	if call.NoKey {
		if in.Contract.KeylessCreates {
			return []Transition{Keyless, KeylessCreate}
		}
		return []Transition{Keyless}
	}
	var out []Transition
	if call.UniqueOf != "" {
		out = append(out, TakenValue)
	}
	return append(out, x.pairTransitions(in, i)...)
}

// pairTransitions are the transitions call i made by being sent beside
// another keyed call that started before it or overlapped it: each counts
// once however many such calls there were.
func (x callIndex) pairTransitions(in Exercise, i int) []Transition {
	op := x.ops[i]
	var leak, fold, burst, retry, changed, reencoded, fixed bool
	for j, other := range x.ops {
		earlier := before(other, j, op, i)
		if j == i || other.Call.NoKey || !earlier && !model.Overlap(op, other) {
			continue
		}
		if x.actions[i] != x.actions[j] {
			leak = leak || otherTenant(in, op.Call, other.Call)
			fold = fold || folded(in, op.Call, other.Call)
			continue
		}
		if op.Call.Broken > 0 || other.Call.Broken > 0 {
			// A broken payload is no retry or change of a valid one.
			fixed = fixed || op.Call.Broken == 0 && reference.Refused(other.Out) && other.End < op.Start
			continue
		}
		same := x.equivalent(i, j)
		burst = burst || model.Overlap(op, other)
		retry = retry || same && other.End < op.Start
		changed = changed || !same && earlier
		reencoded = reencoded || bytes.Equal(x.canon[i], x.canon[j]) && !bytes.Equal(other.Body, op.Body)
	}
	var out []Transition
	for _, m := range []struct {
		t    Transition
		made bool
	}{{OtherTenantSameKey, leak}, {FoldedKey, fold}, {Burst, burst}, {SequentialRetry, retry},
		{ChangedPayload, changed}, {Reencoding, reencoded}, {RefusedThenFixed, fixed}} {
		if m.made {
			out = append(out, m.t)
		}
	}
	return out
}

// recoveredRetries counts the calls that retried an action a crash cut
// off and settled whether its key was released within the recovery time
// (RecoveredRetry). actions are the history's calls' actions.
func recoveredRetries(c model.Contract, h model.History, actions []model.Action) int {
	if c.Recovery <= 0 {
		return 0
	}
	// The end of each action's latest crashed call: where it was cut off.
	cut := map[model.Action]int64{}
	for _, ev := range h.Faults {
		if !ev.Fired || !faultkind.Crashes(ev.Kind) {
			continue
		}
		for _, i := range ev.Ops {
			if i < 0 || i >= len(h.Ops) {
				continue
			}
			if op := h.Ops[i]; op.Call.Fault == ev.Kind && !op.Call.NoKey {
				cut[actions[i]] = max(cut[actions[i]], op.End)
			}
		}
	}
	n := 0
	for i, op := range h.Ops {
		at, ok := cut[actions[i]]
		if !ok || op.Call.NoKey || op.Call.Fault != model.FaultNone || !answered(op) || op.Start <= at {
			continue
		}
		if op.Out.Kind != model.InFlight || op.Start-at > int64(c.Recovery) {
			n++
		}
	}
	return n
}

// answered reports whether a call got an answer of the service's.
func answered(op model.Op) bool { return op.Out.Err == "" && op.Out.Status != 0 }

// before reports whether call a (index i of the history) was made before
// call b (index j): it started first, or at the same instant earlier in
// the history.
func before(a model.Op, i int, b model.Op, j int) bool {
	return a.Start < b.Start || a.Start == b.Start && i < j
}

// otherTenant reports whether call sends the key other sent, from another
// tenant, where tenants must not share keys.
func otherTenant(in Exercise, call, other model.Call) bool {
	return in.Contract.KeyScope != model.KeyScopeGlobal && !in.KeyInTag && call.Tenant != other.Tenant && call.Key == other.Key
}

// folded reports whether call's key differs from other's, of the same
// tenant, only by white space, case or form (the calls are two actions:
// the caller checked).
func folded(in Exercise, call, other model.Call) bool {
	c := in.Contract
	return !in.KeyInTag && c.ActionOf(call).Tenant == c.ActionOf(other).Tenant && call.Key != other.Key &&
		model.PlainKey(call.Key) == model.PlainKey(other.Key)
}
