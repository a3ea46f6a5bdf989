package sighting

import (
	"slices"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// One root cause is one row. A service that builds its cache key from the
// query string shows it as a duplicate (A/k1 v0; A/k1 v0 +query, IDEM-001),
// again as a changed payload accepted (A/k1 v0; A/k1 v1 +query, IDEM-004)
// and as an equivalent payload rejected: three checks, three identities
// (bugid.ID), one mistake. A root cause is a misreading of something the
// calls send (an input ingredient: a changed payload, a re-encoding,
// request noise, another tenant, a key's shape), seen through whatever
// check, fault or interleaving. A shrunk failure F that would be reported
// is instead a sighting of a reported bug R, listed under R's row, when
//   - F's minimal plan has an input ingredient R's has (each ingredient's
//     strip changes both plans);
//   - R's mistake is at work in F's plan: F's plan, or F's plan with what
//     R's plan lacks taken out (its faults, bursts, restarts, other
//     inputs), fires a check of a kind that R's minimal plan or one of its
//     sightings fired (the checks overlap);
//   - and F's own check needs the shared ingredients: F's plan without
//     them, executed the engine's shrinkTries times, never shows it.
//
// A failure is also the bug seen again, with no experiment, when it
// fires the bug's own kind of check and its plan is the bug's or within
// it (request noise and re-encodings aside, tenants and keys renamed), or
// its shrink was cut and its plan holds the bug's (holds): the same plan
// shows the same mistake, whichever table's rows the search met first.
//
// Faults, bursts and restarts are not inputs: two races (a 500 to the
// loser of a burst, a hang of the other call) or two recovery bugs are
// different mistakes about one transition, told apart by their check as
// before. They join a failure to a bug only by another experiment
// (over.go): its plan is the bug's with an input of its own, it
// leaves every wrong row the bug's plan leaves, and both plans need the
// restart, fault or burst they have (a forgotten key after a restart
// taking a changed payload, A/k1 v0; restart; A/k1 v1, is the duplicate
// A/k1 v0; restart; A/k1 v0 seen again). A failure that still shows its check without the shared
// ingredients is a bug of its own: a service that enqueues an outbox row
// on every retry (A/k1 v0; A/k1 v0) and replays a changed payload (A/k1
// v0; A/k1 v1) has two, the second firing the first's IDEM-001 beside its
// IDEM-004 with nothing of the first's to strip; a tenant leak (another
// tenant) and a replayed changed payload (a changed payload) share nothing.
//
// The row stands for the group under its plainest plan (the fewest
// ingredients: the duplicate with the query parameter, not the changed
// payload sent with it; a tenant leak in sequence, not in a burst), then
// its most severe check, then the fewer calls: whichever sighting the
// search met first, the same bug gets the same row on every seed, and
// the others are listed under it. The experiment runs only for a failure about to be reported, a
// few times a run.

// Experiments are what filing a shrunk failure needs: the contract its
// identities are read under, the bugs reported so far, and the one way to
// run a plan, ShowsIn, which executes it up to a few times (the engine's
// shrinkTries) and says whether a violation whose identity wanted accepts
// showed. The engine gives each failure about to be reported one.
type Experiments struct {
	Contract model.Contract
	Bugs     []*findings.Failure
	ShowsIn  func(plan model.Plan, wanted func(bugid.ID) bool) Outcome
}

// Outcome is what an experiment says: the plan showed what was looked
// for, never did in its executions, or the run could not say (out of
// time, stopped).
type Outcome int

const (
	Shown Outcome = iota
	NotShown
	Unknown
)

// idsOf are the identities of a plan's violations, most severe first.
func (x Experiments) idsOf(plan model.Plan, hist model.History, vs []checks.Violation) []bugid.ID {
	ids := make([]bugid.ID, len(vs))
	for i, v := range vs {
		ids[i] = bugid.Of(x.Contract, plan, hist, v)
	}
	return ids
}

// groupIDs are the identities a reported bug's minimal plan and its
// sightings' plans fired.
func (x Experiments) groupIDs(b *findings.Failure) []bugid.ID {
	ids := x.idsOf(b.Plan, b.History, b.Violations)
	for _, s := range b.Sightings {
		ids = append(ids, x.idsOf(s.Plan, s.History, s.Violations)...)
	}
	return ids
}

// Of is the reported bug that shrunk failure f, of identity own
// and firing fired, is a sighting of, and why; nil when f is a bug of its
// own (see above).
func (x Experiments) Of(f *findings.Failure, own bugid.ID, fired []bugid.ID) (*findings.Failure, findings.Why) {
	for _, b := range x.Bugs {
		if findings.Holds(b, f, own, fired) {
			return b, findings.Why{}
		}
	}
	for _, b := range x.Bugs {
		common, extra := shrink.SharedIngredients(b.Plan, f.Plan)
		if len(common) == 0 {
			continue
		}
		group := x.groupIDs(b)
		at := findings.Overlaps(fired, group)
		if !at && len(extra) > 0 {
			at = x.ShowsIn(shrink.StripAll(f.Plan, extra), func(id bugid.ID) bool {
				return slices.ContainsFunc(group, func(g bugid.ID) bool { return bugid.SameKind(g, id) })
			}) == Shown
		}
		if at && x.ShowsIn(shrink.StripAll(f.Plan, common), func(id bugid.ID) bool { return bugid.SameKind(id, own) }) == NotShown {
			return b, findings.Why{Shared: common}
		}
	}
	if b, why := x.over(f, own, fired); b != nil {
		return b, why
	}
	return x.after(f, own)
}
