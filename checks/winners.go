package checks

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
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
