// Package reference is the reference model of an idempotent create: how
// the contract reads an answer (Read, the outcomes' matchers and their
// checks), what answer a call of an action in a given state may get and the
// states it leaves (Judge, Walk), and what counts as a refusal. It takes the
// contract and the history as internal/model's plain values; it renders no
// payload and reads no row.
package reference

import (
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// State is the reference model's state of one action: absent, or created
// with the winning payload and the resource ID. An empty ID on a present
// state means the action may have been created by a call nobody heard
// back from; the next ok answer tells its ID.
type State struct {
	Present bool
	Body    []byte
	ID      string
	// Refused is the status a broken call of the absent action was
	// refused with (0: none; -1: a broken call got no answer, so any
	// refusal may have been saved). Under refusals: stored every later
	// call must get it again; under not-stored a valid call that gets it
	// again met a saved refusal.
	Refused int
}

// Input is what the model needs to know about one call of an action.
type Input struct {
	Body  []byte
	NoKey bool
	// Broken: the payload breaks one of the contract's rules (Call.Broken).
	Broken bool
	// Overlapped is true when another call of the same action was in flight
	// at the same time; only then may a call answer in_flight.
	Overlapped bool
	// HeldOtherwise is true when another call of the action whose payload
	// is not equivalent to this one's, and which certainly left nothing
	// (refused as taken, refused for its broken input, or failed under
	// server_errors: no-effects), was in flight at the same time: it may
	// have held the key when this call came, so a service that claims the
	// key first may refuse this one as a conflict although the action
	// never came to exist. (A call that was answered ok or not at all
	// needs no such word: the states it may have made allow the conflict.)
	HeldOtherwise bool
}

// Rule names the row of the reference model's table that an answer broke.
type Rule int

const (
	// RuleHolds: the answer is one the model allows.
	RuleHolds Rule = iota
	// RuleChangedPayloadAccepted: a payload not equivalent to the winning one was answered ok.
	RuleChangedPayloadAccepted
	// RuleEquivalentRejected: a payload equivalent to the winning one was answered conflict.
	RuleEquivalentRejected
	// RuleUnstableID: an ok answer carried another ID than the action's.
	RuleUnstableID
	// RuleWrongStatus: an answer the table allows in no state (conflict for an
	// absent action, in_flight with nothing in flight, invalid with a key, a
	// keyless call not answered invalid, or under KeylessCreates not ok, an
	// answer outside the contract).
	RuleWrongStatus
	// RuleChangedPayloadRefused: under changed_payload: replayed, a
	// payload not equivalent to the winning one was answered conflict
	// where the contract promises the original's answer.
	RuleChangedPayloadRefused
	// RuleRefusalReplayed: under refusals: not-stored, a valid call after a
	// broken one was refused the same way, as if the refusal were saved.
	RuleRefusalReplayed
	// RuleRefusalNotReplayed: under refusals: stored, a call after a
	// refused one was not answered with the saved refusal (executed, or
	// refused otherwise).
	RuleRefusalNotReplayed
)

// Judge applies one answered call to one state. It returns the rule the
// answer broke (RuleHolds if none) and the states the action may be in
// afterwards: one, or two when an unknown call may or may not have created it.
// Under ChangedReplayed a changed payload is answered as the original: ok
// with its ID, and the state, the winning payload with it, stays the first.
func Judge(c model.Contract, s State, in Input, out model.Outcome) (Rule, []State) {
	if in.NoKey {
		return judgeKeyless(c, s, out)
	}
	if s.Refused != 0 && !s.Present && c.Refusals == model.RefusalsStored {
		return judgeSaved(c, s, in, out)
	}
	if in.Broken && (Refused(out) || out.Kind == model.Unknown || out.Kind == model.Failed) {
		return judgeBroken(c, s, in, out)
	}
	if s.Refused != 0 && !s.Present && Refused(out) && out.Status == s.Refused {
		return RuleRefusalReplayed, []State{s}
	}
	switch out.Kind {
	case model.Failed:
		return RuleHolds, []State{s}
	case model.Unknown, model.Other:
		rule := RuleHolds
		if out.Kind == model.Other {
			rule = RuleWrongStatus
		}
		if s.Present {
			return rule, []State{s}
		}
		return rule, []State{s, {Present: true, Body: in.Body}}
	case model.Invalid:
		return RuleWrongStatus, []State{s}
	case model.Taken:
		// A refusal with no effect, in any state: whether another action
		// held the call's unique values is judged across actions
		// (checks, unique.go), since the holder is another action.
		return RuleHolds, []State{s}
	case model.InFlight:
		if in.Overlapped {
			return RuleHolds, []State{s}
		}
		return RuleWrongStatus, []State{s}
	case model.Conflict:
		return judgeConflict(c, s, in), []State{s}
	default: // OK
		return judgeOK(c, s, in, out)
	}
}

// judgeKeyless judges a keyless call, alone: it is refused where the key
// is required and an ordinary create where it is not (its rows and its ID
// are the checks' to count, by tenant), so it leaves the state as it was.
func judgeKeyless(c model.Contract, s State, out model.Outcome) (Rule, []State) {
	want := model.Invalid
	if c.KeylessCreates {
		want = model.OK
	}
	if out.Kind == want || out.Kind == model.Unknown || out.Kind == model.Failed {
		return RuleHolds, []State{s}
	}
	return RuleWrongStatus, []State{s}
}

// judgeConflict is the rule a conflict answer breaks: it is right for a
// payload not equivalent to the stored one, unless the contract replays
// changed payloads, and for an action not created only while another
// call holds it. A conflict never changes the state.
func judgeConflict(c model.Contract, s State, in Input) Rule {
	switch {
	case !s.Present && in.HeldOtherwise:
		return RuleHolds
	case !s.Present:
		return RuleWrongStatus
	case payloads.Equivalent(c, s.Body, in.Body):
		return RuleEquivalentRejected
	case c.ChangedReplayed:
		return RuleChangedPayloadRefused
	default:
		return RuleHolds
	}
}

// judgeOK judges an ok answer: it creates the action, or replays it with
// the ID it was first answered with (learning that ID if the creating
// call's answer was lost), and must not accept a changed payload unless
// the contract replays those.
func judgeOK(c model.Contract, s State, in Input, out model.Outcome) (Rule, []State) {
	switch {
	case !s.Present:
		return RuleHolds, []State{{Present: true, Body: in.Body, ID: out.ID}}
	case !c.ChangedReplayed && !payloads.Equivalent(c, s.Body, in.Body):
		return RuleChangedPayloadAccepted, []State{s}
	case s.ID == "":
		return RuleHolds, []State{{Present: true, Body: s.Body, ID: out.ID}}
	case s.ID != out.ID:
		return RuleUnstableID, []State{s}
	default:
		return RuleHolds, []State{s}
	}
}

// judgeBroken judges a broken call refused, or unanswered. A refusal
// leaves no effect; refusing the first call of an absent action marks the
// state with the refusal's status, which under refusals: stored every
// later call gets again. An unanswered one was refused (and under stored,
// maybe saved, with any status) or taken by a service that does not
// enforce the rule. (A broken call answered ok is judged as any call: the
// service took it, and the run notes the rule as the contract's mistake.)
func judgeBroken(c model.Contract, s State, in Input, out model.Outcome) (Rule, []State) {
	if Refused(out) {
		if s.Present || s.Refused != 0 {
			return RuleHolds, []State{s}
		}
		return RuleHolds, []State{{Refused: out.Status}}
	}
	states := []State{s}
	if out.Kind == model.Unknown && !s.Present {
		states = append(states, State{Present: true, Body: in.Body})
	}
	if c.Refusals == model.RefusalsStored && !s.Present && s.Refused == 0 {
		states = append(states, State{Refused: -1})
	}
	return RuleHolds, states
}

// judgeSaved judges a call of an action whose refusal is saved
// (refusals: stored): it must get the same status again, or a conflict
// (its payload differs from the one saved, which a service may check
// first), or in_flight beside another call; it creates nothing.
func judgeSaved(c model.Contract, s State, in Input, out model.Outcome) (Rule, []State) {
	switch {
	case out.Kind == model.Unknown || out.Kind == model.Failed:
		return RuleHolds, []State{s}
	case out.Kind == model.InFlight && in.Overlapped:
		return RuleHolds, []State{s}
	case Refused(out) && (s.Refused == -1 || out.Status == s.Refused):
		return RuleHolds, []State{{Refused: out.Status}}
	case out.Kind == model.Conflict:
		return RuleHolds, []State{s}
	case out.Kind == model.OK:
		// The service executed it: go on from what it did.
		return RuleRefusalNotReplayed, []State{{Present: true, Body: in.Body, ID: out.ID}}
	}
	return RuleRefusalNotReplayed, []State{s}
}

// BadAnswer is one call whose answer the model does not allow.
type BadAnswer struct {
	Op   int // index into the ops given to Walk
	Rule Rule
}

// Walk judges the calls of ONE action, made one after another, against the
// model. It keeps every state the action may be in (unknown calls fork it)
// and reports a call only when no possible state allows its answer; the walk
// then goes on from the successors of every state, so one mistake is reported
// once and does not make a later, correct answer look wrong. A call may
// answer in_flight when it overlaps an earlier one AtWork: after an
// unknown call, whose work has no known end, every call is. It returns the bad answers and the possible final states.
func Walk(c model.Contract, ops []model.Op) ([]BadAnswer, []State) {
	states := []State{{}}
	var findings []BadAnswer
	for i, op := range ops {
		in := Input{Body: op.Body, NoKey: op.Call.NoKey, Broken: op.Call.Broken > 0, Overlapped: concurrentWithEarlier(ops, i),
			HeldOtherwise: heldOtherwise(c, ops, i)}
		var next, all []State
		firstRule := RuleHolds
		for j, s := range states {
			rule, succ := Judge(c, s, in, op.Out)
			if j == 0 {
				firstRule = rule
			}
			all = appendStates(c, all, succ)
			if rule == RuleHolds {
				next = appendStates(c, next, succ)
			}
		}
		if next == nil {
			findings = append(findings, BadAnswer{Op: i, Rule: firstRule})
			next = all
		}
		states = next
	}
	return findings, states
}

// concurrentWithEarlier reports whether ops[i] may have met an earlier
// call with a key inside the target.
func concurrentWithEarlier(ops []model.Op, i int) bool {
	for _, earlier := range ops[:i] {
		if !earlier.Call.NoKey && model.Overlap(ops[i].AtWork(), earlier.AtWork()) {
			return true
		}
	}
	return false
}

// heldOtherwise reports whether a call of the action that left nothing,
// with a payload not equivalent to ops[i]'s, was at work at the same time
// (Input.HeldOtherwise).
func heldOtherwise(c model.Contract, ops []model.Op, i int) bool {
	for j, other := range ops {
		if j != i && HeldAndLeftNothing(other) && model.Overlap(ops[i].AtWork(), other.AtWork()) && !payloads.Equivalent(c, ops[i].Body, other.Body) {
			return true
		}
	}
	return false
}

// HeldAndLeftNothing reports a call that may have held its key while it
// ran although it certainly took no effect: refused as taken, refused for
// the rule its payload broke, or failed (a server error the contract
// promises left nothing).
func HeldAndLeftNothing(op model.Op) bool {
	if op.Call.NoKey {
		return false
	}
	return op.Out.Kind == model.Taken || op.Out.Kind == model.Failed || op.Call.Broken > 0 && Refused(op.Out)
}

// appendStates adds the states of src not yet in dst; states whose bodies
// are equivalent are one state, so a re-encoded retry does not split it.
func appendStates(c model.Contract, dst []State, src []State) []State {
	for _, s := range src {
		dup := false
		for _, d := range dst {
			if d.Present == s.Present && d.ID == s.ID && d.Refused == s.Refused && payloads.Equivalent(c, d.Body, s.Body) {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, s)
		}
	}
	return dst
}
