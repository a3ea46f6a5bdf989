package sighting

import (
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/shrink"
)

// One mistake about a restart (or a fault, or a race) seen through an
// input of the failure's own. A service that keeps its keys in process
// memory forgets them on a restart: a retry after it writes a second
// ticket (A/k1 v0; restart; A/k1 v0, IDEM-001), and the same forgotten key
// takes a changed payload (A/k1 v0; restart; A/k1 v1, IDEM-004). The two
// plans share no input, so the rule of shared inputs (Experiments.Of) cannot
// join them; what joins them is the experiment that shows whose mistake
// the changed payload meets: without the restart the changed payload is
// refused as it should be, and the duplicate needs the restart too. A
// shrunk failure F is then a sighting of a reported bug R when, of the
// two, one plan (rich) is the other's (plain) with inputs of its own
// added, and
//   - taking those inputs out of rich leaves plain's plan (tenants and
//     keys renamed): the same calls over the same restart;
//   - plain's plan left wrong rows, and rich's left every one of them
//     (plain's mistake is at work in rich's plan, beside rich's own
//     check; the answers' checks differ with the input: a second ID for
//     the same payload is IDEM-003, for a changed one IDEM-004);
//   - both plans have a restart, fault or burst, and both need it: each
//     plan without the ones both have, executed the engine's shrinkTries
//     times, never shows its own check.
//
// Two mistakes about one transition stay two rows when the plainer plan's
// wrong rows are not all in the other's, or it left none: a 500 to a
// burst's loser and a hang of a burst of identical calls (answers only),
// a retry's outbox row and a replayed changed payload after a restart
// (the replay leaves no second outbox row); and an outbox row on every
// retry and a replayed changed payload with no restart (the changed
// payload's check shows without one). What this cannot tell apart is a
// service with two mistakes that live only over one restart where the
// one's plan also leaves all of the other's rows: the sighting is then
// listed under the other's row, never hidden.

// over is the reported bug that shrunk failure f, of identity own
// and firing fired, is a sighting of by the experiment above, and why;
// nil when there is none.
func (x Experiments) over(f *findings.Failure, own bugid.ID, fired []bugid.ID) (*findings.Failure, findings.Why) {
	for _, b := range x.Bugs {
		// The bug's plan must be minimal: it heads the row. f's may be
		// cut (on a loaded machine A/k1 v0; restart; A/k1 v1e4 +trace):
		// the experiment, not its size, says whose mistake it shows.
		if b.NotMinimal {
			continue
		}
		over, ok := findings.OverOneMistake(b, f, x.idsOf(b.Plan, b.History, b.Violations), fired)
		if !ok {
			continue
		}
		// Both need what they share: the cheaper experiments come first.
		if x.ShowsIn(shrink.StripAll(f.Plan, over), func(id bugid.ID) bool { return bugid.SameKind(id, own) }) == NotShown &&
			x.ShowsIn(shrink.StripAll(b.Plan, over), func(id bugid.ID) bool { return bugid.SameKind(id, findings.IDOf(b)) }) == NotShown {
			return b, findings.Why{Shared: over, Over: true}
		}
	}
	return nil, findings.Why{}
}
