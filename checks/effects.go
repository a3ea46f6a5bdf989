package checks

import (
	"github.com/idemstress/idemstress/internal/effects"
	"github.com/idemstress/idemstress/internal/model"
)

// effectKinds gives each kind of finding of internal/effects its check.
var effectKinds = map[effects.Kind]ID{
	effects.DuplicateEffect:   DuplicateEffect,
	effects.MissingEffect:     MissingEffect,
	effects.UnstableResponse:  UnstableResponse,
	effects.RejectedEffect:    RejectedEffect,
	effects.TenantLeak:        TenantLeak,
	effects.KeysFolded:        KeysFolded,
	effects.StrayWrite:        StrayWrite,
	effects.FieldsDiffer:      FieldsDiffer,
	effects.BrokenReference:   BrokenReference,
	effects.PhantomDelivery:   PhantomDelivery,
	effects.DuplicateDelivery: DuplicateDelivery,
	effects.EventIDChanged:    EventIDChanged,
	effects.LostDelivery:      LostDelivery,
}

// effectChecks compare the committed rows and the sinks' deliveries with
// what the answers promised (internal/effects), each finding a violation
// of its check.
func effectChecks(in Input, actions map[model.Action]*actionInfo, keyless []model.Op) []Violation {
	promised := make(map[model.Action]*effects.Promised, len(actions))
	for a, info := range actions {
		promised[a] = &info.Promised
	}
	var vs []Violation
	for _, f := range effects.Check(effects.Input(in), promised, keyless) {
		vs = append(vs, violation(effectKinds[f.Kind], f.Action, f.What, f.Detail))
	}
	return vs
}

// Committed lists the actions with rows in some effect table: those
// whose events a sink must receive. A run waits for them before judging.
func Committed(in Input) []model.Action {
	return effects.Committed(effects.Input(in))
}
