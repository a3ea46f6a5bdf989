package checks

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// keylessAnswers fires on a keyless create answered with an ID another
// ok answer of the history carried: a replay of another call's resource,
// though it is an action of its own. keyed are the keyed actions.
func keylessAnswers(keyless []model.Op, keyed map[model.Action]*actionInfo) []Violation {
	var vs []Violation
	taken := map[string]bool{}
	for _, info := range keyed {
		for _, op := range info.ops {
			if op.Out.Kind == model.OK {
				taken[op.Out.ID] = true
			}
		}
	}
	ran := slices.SortedStableFunc(slices.Values(keyless), func(x, y model.Op) int { return cmp.Compare(x.Start, y.Start) })
	for _, op := range ran {
		if op.Out.Kind != model.OK {
			continue
		}
		if taken[op.Out.ID] {
			vs = append(vs, violation(UnstableResponse, model.Action{Tenant: op.Call.Tenant}, "a call without a key was answered with the ID of another call's resource",
				fmt.Sprintf("call %s got %s: an ordinary create under key_required: false, never a replay", op.Call, op.Out)))
		}
		taken[op.Out.ID] = true
	}
	return vs
}
