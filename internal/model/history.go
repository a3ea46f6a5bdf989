package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// OutcomeKind is Jepsen's ok / fail / info, refined by the contract.
type OutcomeKind string

const (
	// OK is a 2xx answer with a resource ID (created or replayed).
	OK OutcomeKind = "ok"
	// Conflict is the contract's answer to "same key, different payload".
	Conflict OutcomeKind = "conflict"
	// InFlight is the contract's answer to "same key still being processed".
	InFlight OutcomeKind = "in_flight"
	// Invalid is the contract's answer to a call without a key.
	Invalid OutcomeKind = "invalid"
	// Taken is the contract's refusal of a call whose unique field
	// (Contract.Unique) holds a value another action already holds
	// (Compute Engine's alreadyExists for an instance name).
	Taken OutcomeKind = "taken"
	// Unknown is no answer, or a server error (a 5xx, or an answer
	// answers.server_error takes): the call may or may not have taken effect.
	Unknown OutcomeKind = "unknown"
	// Failed is a server error that the contract promises left no effect.
	Failed OutcomeKind = "failed"
	// Other is an answer the contract does not allow at all (a 404, a 2xx
	// without an ID): always a violation, and the call's effect is unknown.
	Other OutcomeKind = "other"
)

// Outcome is what one call got back.
type Outcome struct {
	Kind   OutcomeKind `json:"kind"`
	Status int         `json:"status,omitempty"`
	ID     string      `json:"id,omitempty"`
	// Err says why there was no answer (timeout, reset, refused).
	Err string `json:"error,omitempty"`
	// Body is the start of the answer's body (at most AnswerKept bytes),
	// kept so that a report can show why no ID was found in it.
	Body Body `json:"body,omitempty"`
}

// ServerError reports an answer the contract read as a server error: a
// 5xx no other outcome takes, or one answers.server_error takes (a GraphQL
// 200 with errors[0].extensions.code INTERNAL_SERVER_ERROR). Only a
// server error is answered and yet of unknown (or, under server_errors:
// no-effects, no) effect, so every check that treats an answer as a 5xx
// asks this, never the status.
func (o Outcome) ServerError() bool {
	return o.Status != 0 && o.Err == "" && (o.Kind == Unknown || o.Kind == Failed)
}

// AnswerKept bounds how much of an answer's body a history keeps.
const AnswerKept = 4 << 10

// String renders an outcome the one way idemstress shows answers:
// "ok 201 id 7", "conflict 422", "no answer (timeout)".
func (o Outcome) String() string {
	switch {
	case o.Err != "":
		return "no answer (" + o.Err + ")"
	case o.ID != "":
		return fmt.Sprintf("%s %d id %s", o.Kind, o.Status, ShowID(o.ID))
	case o.ServerError():
		return fmt.Sprintf("%s %d (server error)", o.Kind, o.Status)
	default:
		return fmt.Sprintf("%s %d", o.Kind, o.Status)
	}
}

// Op is one call of a history: what was sent, when, and what came back.
type Op struct {
	Step int  `json:"step"`
	Call Call `json:"call"`
	// Body is the payload as the reference model judges it (payloads.Render):
	// {{key}} and {{tenant}} in its strings stand for the call's identity,
	// filled in only on the wire. Shown is it as a reader wants it.
	Body Body `json:"body"`
	// Start and End are nanoseconds since the run began (monotonic).
	Start int64   `json:"start"`
	End   int64   `json:"end"`
	Out   Outcome `json:"outcome"`
}

// Shown is the payload as the history shows it: Body with {{key}} and
// {{tenant}} filled in with the call's logical names (k1, A), as the
// request carried them (namespaced on the wire), so a key in the body
// does not read as a placeholder sent; a call without its key left out
// the members carrying it, which Shown says in their place.
func (op Op) Shown() string {
	key := op.Call.Key
	if op.Call.NoKey {
		key = "(left out: no key)"
	}
	// Encoding 3 writes each string's first character \u-escaped.
	return strings.NewReplacer("{{key}}", key, "{{tenant}}", op.Call.Tenant,
		`\u007b{key}}`, key, `\u007b{tenant}}`, op.Call.Tenant).Replace(op.Body.String())
}

// String renders a call and its answer: "A/k1 v0 → ok 201 id 7".
func (op Op) String() string { return op.Call.String() + " → " + op.Out.String() }

// EffectUnknown reports whether nobody knows if the call took effect: it
// got no answer, or a 5xx, or an answer outside the contract.
func (op Op) EffectUnknown() bool { return op.Out.Kind == Unknown || op.Out.Kind == Other }

// Until is the last moment the call may have been at work in the target:
// its end, or never (math.MaxInt64) when its effect is unknown, since it
// may take effect at any moment after it started. A clock that ran
// backwards (End before Start) reads as an instant call.
func (op Op) Until() int64 {
	if op.EffectUnknown() {
		return math.MaxInt64
	}
	return max(op.End, op.Start)
}

// Overlap reports whether two calls were in flight at the same time as the
// client saw them: each was sent before the other was answered or given
// up on. Intervals are closed, as porcupine reads them. Calls of one action
// that never overlap can be judged in the order they were made.
func Overlap(a, b Op) bool { return a.Start <= b.End && b.Start <= a.End }

// AtWork is the call stretched over the time it may have been at work in
// the target (its End is Until): Overlap(a.AtWork(), b.AtWork()) says two
// calls may have been at work at the same time, as a call must have been
// with another of its action to answer in_flight.
func (op Op) AtWork() Op {
	op.End = op.Until()
	return op
}

// History is one plan's execution as it happened, like a Jepsen history:
// every call (Ops, in the order they started) and every nemesis operation
// (Faults, the planned faults as they happened, in the order they
// started), on one clock. Checks, explanations, the timeline and
// shrinking read both from here; nothing about a fault travels beside it.
type History struct {
	Ops    []Op         `json:"ops"`
	Faults []FaultEvent `json:"faults,omitempty"`
	// Deliveries are the requests the contract's sinks received for the
	// plan's actions, in the order they arrived (model.Sink).
	Deliveries []Delivery `json:"deliveries,omitempty"`
}

// Calls is a history of calls alone, with no fault.
func Calls(ops ...Op) History { return History{Ops: ops} }

// Len counts the history's calls.
func (h History) Len() int { return len(h.Ops) }

// TouchedBy is the fault that touched call i of the history (a fault it
// carried, a crash that left its replica down, a dependency it found
// gone), and whether there was one.
func (h History) TouchedBy(i int) (FaultEvent, bool) {
	for _, ev := range h.Faults {
		if slices.Contains(ev.Ops, i) {
			return ev, true
		}
	}
	return FaultEvent{}, false
}

// Event is one entry of a history in time order: a call (Op, its index in
// Ops) or a nemesis operation (Fault, its index in Faults).
type Event struct {
	Op    *Op
	Fault *FaultEvent
	Index int
}

// Events is the history in the order things started: each nemesis
// operation before the calls that started with it or after it.
func (h History) Events() []Event {
	evs := make([]Event, 0, len(h.Ops)+len(h.Faults))
	i, j := 0, 0
	for i < len(h.Ops) || j < len(h.Faults) {
		if j < len(h.Faults) && (i == len(h.Ops) || h.Faults[j].Start <= h.Ops[i].Start) {
			evs = append(evs, Event{Fault: &h.Faults[j], Index: j})
			j++
			continue
		}
		evs = append(evs, Event{Op: &h.Ops[i], Index: i})
		i++
	}
	return evs
}
