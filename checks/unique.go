package checks

import (
	"fmt"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// A second unique field (the contract's unique:) is shared across actions,
// so its refusal is judged across them, beside the per-action model (which
// takes a taken answer as a refusal with no effect in any state). The
// value a call sends is known from the plan: its own action's, or
// (Call.UniqueOf) another action's of its tenant. An action holds the
// value of the call that created it, and only that one: a later call of
// an existing action writes nothing, whatever value it sends. A taken
// answer needs another action that may hold the value: a call of it that
// sent the value and may have created it started before the refused call
// ended. An ok answer is wrong when the action was certainly created
// with a value another action certainly held first: every call that may
// have created either sent the value, and one of the other's was answered
// ok before the first of this action's began. Values are never given back (no call deletes), so a value once
// held stays held.

// uniqueChecks judge every call of the history that sent a unique value.
func uniqueChecks(c model.Contract, h model.History) []Violation {
	if len(c.Unique) == 0 {
		return nil
	}
	creators := map[model.Action][]model.Op{}
	for _, op := range h.Ops {
		if !op.Call.NoKey {
			a := c.ActionOf(op.Call)
			creators[a] = append(creators[a], op)
		}
	}
	firstOK := map[model.Action]int64{}
	for a, ops := range creators {
		creators[a], firstOK[a] = mayCreate(ops)
	}
	var vs []Violation
	for _, op := range h.Ops {
		if op.Call.NoKey || op.Out.Kind != model.Taken && op.Out.Kind != model.OK {
			continue
		}
		a, value := c.ActionOf(op.Call), valueOf(c, op.Call)
		// This action may have held the value since its first creator that
		// sent it. An ok answer is a creation with the value only when
		// every call that may have created the action sent it: else it
		// may be the replay of another's creation.
		since, creates := op.Start, len(creators[a]) > 0
		for _, own := range creators[a] {
			if valueOf(c, own.Call) == value {
				since = min(since, own.Start)
			}
			creates = creates && valueOf(c, own.Call) == value
		}
		mayHold, held := false, false
		for other, ops := range creators {
			if other == a {
				continue
			}
			all := len(ops) > 0
			for _, y := range ops {
				same := valueOf(c, y.Call) == value
				mayHold = mayHold || same && y.Start <= op.End
				all = all && same
			}
			ok := firstOK[other]
			held = held || all && ok >= 0 && ok < since
		}
		fields := strings.Join(c.Unique, ", ")
		switch {
		case op.Out.Kind == model.Taken && !mayHold:
			vs = append(vs, violation(WrongStatus, a, "taken for a call whose unique values no other action holds",
				fmt.Sprintf("call %s got %s; no other action had been created with its %s", op.Call, op.Out, fields)))
		case op.Out.Kind == model.OK && creates && held:
			vs = append(vs, violation(WrongStatus, a, "ok for a call whose unique values another action holds",
				fmt.Sprintf("call %s got %s; another action had been created with its %s", op.Call, op.Out, fields)))
		}
	}
	return vs
}

// mayCreate keeps the calls of one action that may have created it: those
// answered ok or with no certain answer that started no later than its
// first ok answer ended (a later one found it made). It also returns when
// that first ok answer ended, and false when none came.
func mayCreate(ops []model.Op) ([]model.Op, int64) {
	first, answered := int64(0), false
	for _, op := range ops {
		if op.Out.Kind == model.OK && (!answered || op.End < first) {
			first, answered = op.End, true
		}
	}
	var out []model.Op
	for _, op := range ops {
		if (op.Out.Kind == model.OK || op.EffectUnknown()) && (!answered || op.Start <= first) {
			out = append(out, op)
		}
	}
	if !answered {
		return out, -1
	}
	return out, first
}

// valueOf names the action whose unique values a call sends.
func valueOf(c model.Contract, call model.Call) model.Action {
	if call.UniqueOf != "" {
		call.Key = call.UniqueOf
	}
	return c.ActionOf(call)
}
