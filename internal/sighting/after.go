package sighting

import (
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// One mistake about a fault seen through the retry that follows it. A
// service whose error path commits a payment without its ledger row shows
// it by the fault alone (A/k1 v0 [db-error], IDEM-002), and again when the
// call is retried (A/k1 v0 [db-error]; A/k1 v0): the retry, executed
// afresh, writes a second payment (IDEM-001). The generator follows most
// such faults by their retry (gen's follow-up) and the search deals each
// fault both alone and retried, so both are met in one run. A shrunk
// failure F and a reported bug R are then one row when
//   - one plan (rich) is the other's (plain) with retries of its faulted
//     calls added, nothing else: taking the retries out leaves plain's
//     plan (tenants and keys renamed);
//   - plain's plan has a fault, and rich's check needs it: rich's plan
//     without its faults, executed the engine's shrinkTries times, never
//     shows it (the retry alone is answered as a retry should be).
// Two mistakes that both need a fault and its retry (a partial effect,
// and a key left stuck) are then one row, the second listed under the
// first as a sighting, never hidden.

// after is the reported bug that shrunk failure f, of identity
// own, is a sighting of by the rule above; nil when there is none.
func (x Experiments) after(f *findings.Failure, own bugid.ID) (*findings.Failure, findings.Why) {
	for _, b := range x.Bugs {
		if b.NotMinimal {
			continue
		}
		rich, ok := findings.AfterOneFault(b, f)
		if !ok {
			continue
		}
		richOwn := own
		if rich == b {
			richOwn = findings.IDOf(b)
		}
		bare := shrink.EachCall(func(c *model.Call) { c.Fault, c.Point = model.FaultNone, "" })(rich.Plan)
		if x.ShowsIn(bare, func(id bugid.ID) bool { return bugid.SameKind(id, richOwn) }) == NotShown {
			return b, findings.Why{After: true}
		}
	}
	return nil, findings.Why{}
}
