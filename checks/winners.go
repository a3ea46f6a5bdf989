package checks

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// The stored fields of an action must be those of the payload that won:
// the first one the service executed. Under the default fingerprint policy
// every ok answer carries an equivalent payload, so the answers name it.
// Under changed_payload: replayed a changed payload is answered ok as the
// original, so the winner is the payload of the call that came first,
// which the answers leave open only where calls overlapped or one went
// unanswered; a row must then hold one of the payloads that may have won.

// winners are the bodies of the possible final states when every one of
// them has the action created: nil when it may not exist.
func winners(states []reference.State) [][]byte {
	var bodies [][]byte
	for _, s := range states {
		if !s.Present {
			return nil
		}
		bodies = append(bodies, s.Body)
	}
	return bodies
}

// okStates is the action's final state when the answers settle it. Under
// the default policy every ok answer carried an equivalent payload, so
// that payload won. Under changed_payload: replayed any call that may
// have taken effect before the first ok answer ended may have won.
func okStates(c model.Contract, ops []model.Op) []reference.State {
	var winner *model.Op
	for i, op := range ops {
		if op.Out.Kind != model.OK {
			continue
		}
		if winner != nil && !c.ChangedReplayed && !payloads.Equivalent(c, winner.Body, op.Body) {
			return nil
		}
		// The first ok answer to end: under replayed the winner started before it.
		if winner == nil || c.ChangedReplayed && op.End < winner.End {
			winner = &ops[i]
		}
	}
	if winner == nil {
		return nil
	}
	if !c.ChangedReplayed {
		return []reference.State{{Present: true, Body: winner.Body, ID: winner.Out.ID}}
	}
	var states []reference.State
	for _, op := range ops {
		mayWin := op.Out.Kind == model.OK || op.EffectUnknown()
		// A call that started after an ok answer ended found the action made.
		if !mayWin || op.Start > winner.End || op.Call.NoKey {
			continue
		}
		if !slices.ContainsFunc(states, func(s reference.State) bool { return payloads.Equivalent(c, s.Body, op.Body) }) {
			states = append(states, reference.State{Present: true, Body: op.Body, ID: winner.Out.ID})
		}
	}
	return states
}

// sentWinners are the winning payloads as the action's calls sent them:
// a field that carries the key or the tenant ("ref-{{key}}") is stored
// filled in, while the payloads are judged with them as written.
func sentWinners(in Input, a model.Action, winners [][]byte) [][]byte {
	c := in.Contract
	if !payloads.Carries(c, "key") && !payloads.Carries(c, "tenant") {
		return winners
	}
	key, tenant := identifiers.SentKey(c, in.NS, a.Key), ""
	if a.Tenant != "" {
		tenant = identifiers.SentTenant(c, in.NS, a.Tenant)
	}
	out := make([][]byte, len(winners))
	for i, w := range winners {
		out[i] = payloads.WithIdentity(w, key, tenant)
	}
	return out
}

// fieldChecks compare a row's fields with the winning payload; with more
// than one possible winner the row must hold one of them, all its fields
// from the same payload, and is reported against the first.
func fieldChecks(e effect.Effect, a model.Action, winners [][]byte, r model.Row) []Violation {
	var first []Violation
	for i, w := range winners {
		vs := fieldsAgainst(e, a, w, r)
		if len(vs) == 0 {
			return nil
		}
		if i == 0 {
			first = vs
		}
	}
	return first
}

// fieldsAgainst compares a row's fields with one payload.
func fieldsAgainst(e effect.Effect, a model.Action, winner []byte, r model.Row) []Violation {
	var vs []Violation
	for _, col := range slices.Sorted(maps.Keys(e.Fields)) {
		// By JSON value: a numeric column's 1250.00 is the payload's 1250.
		stored, set := r.Fields[col]
		if !payloads.StoredEqual(winner, e.Fields[col], stored, !set) {
			want, _ := payloads.Pointer(winner, e.Fields[col])
			shown := strconv.Quote(stored)
			if !set {
				shown = "NULL"
			}
			vs = append(vs, violation(FieldsDiffer, a, fmt.Sprintf("a column of %s differs from the winning payload", e.Table),
				fmt.Sprintf("action %s: %s.%s is %s, the winning payload has %q", a, e.Table, col, shown, want)))
		}
	}
	return vs
}
