package stress

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
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
//     them, executed shrinkTries times, never shows it.
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
// (sighting_over.go): its plan is the bug's with an input of its own, it
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

// Sighting is a reported bug seen another way: a shrunk failure whose
// check needs what the bug's minimal plan needs (see above).
type Sighting struct {
	Check      checks.ID          `json:"check"`
	Bug        string             `json:"bug,omitempty"`
	Plan       model.Plan         `json:"plan"`
	History    model.History      `json:"history"`
	Violations []checks.Violation `json:"violations"`
	NotMinimal bool               `json:"not_minimal,omitempty"`
	// Shared names the ingredients it shares with the bug's minimal plan,
	// without which its check did not show; none when its plan is the
	// bug's, or holds it (Why says which).
	Shared []string `json:"shared"`
	// Why says in a sentence why it is the bug seen again.
	Why string `json:"why"`
	id  bugid.ID
}

// Checks lists the checks the sighting fired, its own first.
func (s Sighting) Checks() []checks.ID { return ownFirst(s.Check, s.Violations) }

// ownFirst is the checks vs fired, own first.
func ownFirst(own checks.ID, vs []checks.Violation) []checks.ID {
	return append([]checks.ID{own}, slices.DeleteFunc(checks.IDsOf(vs), func(id checks.ID) bool { return id == own })...)
}

// overlaps reports whether some identity of fired is the same kind of
// mistake as one of group's.
func overlaps(fired, group []bugid.ID) bool {
	return slices.ContainsFunc(fired, func(id bugid.ID) bool {
		return slices.ContainsFunc(group, func(g bugid.ID) bool { return bugid.SameKind(g, id) })
	})
}

// groupIDs are the identities a reported bug's minimal plan and its
// sightings' plans fired.
func (r *runner) groupIDs(b *Failure) []bugid.ID {
	ids := r.idsOf(b.Plan, b.History, b.Violations)
	for _, s := range b.Sightings {
		ids = append(ids, r.idsOf(s.Plan, s.History, s.Violations)...)
	}
	return ids
}

// sightingOf is the reported bug that shrunk failure f, of identity own
// and firing fired, is a sighting of, and why; nil when f is a bug of its
// own (see above).
func (r *runner) sightingOf(ctx context.Context, h *shrinking, f *Failure, own bugid.ID, fired []bugid.ID) (*Failure, sightingWhy) {
	for _, b := range r.bugs {
		if holds(b, f, own, fired) {
			return b, sightingWhy{}
		}
	}
	for _, b := range r.bugs {
		common, extra := shrink.SharedIngredients(b.Plan, f.Plan)
		if len(common) == 0 {
			continue
		}
		group := r.groupIDs(b)
		at := overlaps(fired, group)
		if !at && len(extra) > 0 {
			at = r.showsIn(ctx, h, shrink.StripAll(f.Plan, extra), func(id bugid.ID) bool {
				return slices.ContainsFunc(group, func(g bugid.ID) bool { return bugid.SameKind(g, id) })
			}) == shown
		}
		if at && r.showsIn(ctx, h, shrink.StripAll(f.Plan, common), func(id bugid.ID) bool { return bugid.SameKind(id, own) }) == notShown {
			return b, sightingWhy{shared: common}
		}
	}
	if b, why := r.sightingOver(ctx, h, f, own, fired); b != nil {
		return b, why
	}
	return r.sightingAfter(ctx, h, f, own)
}

// holds reports whether failure f, firing fired, is reported bug b by its
// plan: f fires b's own kind of check (or a sighting's) and f's plan is
// b's or within it (request noise and re-encodings aside, tenants and keys
// renamed, a burst only where b has one); or b's plan is minimal, f's
// holds it, and f's own check is b's on the same table (the missing
// outbox row of a crash, worded as an ok answer's once a retry is
// answered), or f's shrink was cut and it fires b's check. A duplicate ticket
// after a restart (A/k1 v0; restart; A/k1 v0) whose minimal plan also
// duplicates the outbox is the outbox's duplicate after a restart found
// first, when that one's shrink was cut at A/k4 v0; restart; A/k4 v0
// +query. A bug whose minimal plan holds b's and does more under another
// check (a stuck key after a crash, where b is the crash's partial
// effect) is a bug of its own: the more it does may be its own mistake;
// and two cut plans (a 500 and a hang in one big burst) say too little to
// be one bug.
func holds(b, f *Failure, own bugid.ID, fired []bugid.ID) bool {
	ids := []bugid.ID{b.id}
	for _, s := range b.Sightings {
		ids = append(ids, s.id)
	}
	if overlaps(fired, ids) && shrink.Within(f.Plan, b.Plan) {
		return true
	}
	if b.NotMinimal || !shrink.Within(b.Plan, f.Plan) {
		return false
	}
	if f.NotMinimal {
		return slices.ContainsFunc(fired, func(id bugid.ID) bool { return id.Check == b.Check })
	}
	return own.Check == b.id.Check && own.Status == b.id.Status && table(own.Rows) == table(b.id.Rows)
}

// table is the table a check of rows names last in its message ("… fewer
// than 1 row(s) in notification_outbox"): two wordings of one table's
// missing row are one mistake.
func table(message string) string {
	_, t, _ := strings.Cut(message[strings.LastIndex(message, " in ")+1:], "in ")
	return t
}

// An experiment's outcome: the plan showed what was looked for, never
// did in shrinkTries executions, or the run could not say (out of time,
// stopped).
const (
	shown = iota
	notShown
	unknown
)

// showsIn executes plan up to shrinkTries times and says whether a
// violation whose identity wanted accepts showed.
func (r *runner) showsIn(ctx context.Context, h *shrinking, plan model.Plan, wanted func(bugid.ID) bool) int {
	// A little time past the shrink budget: the answer decides which row
	// a bug is reported in.
	runCtx, cancel := context.WithDeadline(ctx, h.shrinkBy.Add(h.budget/10))
	defer cancel()
	for range shrinkTries {
		vs, hist, err := r.once(runCtx, plan)
		if err != nil {
			if ctx.Err() != nil || runCtx.Err() == nil {
				r.stop = cmp.Or(r.stop, err)
			}
			return unknown
		}
		if slices.ContainsFunc(r.idsOf(plan, hist, vs), wanted) {
			return shown
		}
	}
	return notShown
}

// see files f as a sighting of reported bug b, for the reason why: the
// row takes the one that heads the group (headFirst), the other is listed
// under it.
func (b *Failure) see(f *Failure, why sightingWhy) {
	s := Sighting{Check: f.Check, Bug: f.Bug, Plan: f.Plan, History: f.History, Violations: f.Violations, NotMinimal: f.NotMinimal,
		Shared: shrink.Names(why.shared), Why: why.String(), id: f.id}
	if headFirst(f, b) < 0 {
		// The row takes f's check and plan, and b's are listed under it;
		// the row keeps its place and when the bug was first seen
		// (Detect, Plans, Original).
		old := Sighting{Check: b.Check, Bug: b.Bug, Plan: b.Plan, History: b.History, Violations: b.Violations, NotMinimal: b.NotMinimal,
			Shared: s.Shared, Why: s.Why, id: b.id}
		b.Check, b.Bug, b.id, b.Plan, b.History, b.Violations, b.NotMinimal = f.Check, f.Bug, f.id, f.Plan, f.History, f.Violations, f.NotMinimal
		b.Flaky, b.Shrink, b.Budget = f.Flaky, b.Shrink+f.Shrink, max(b.Budget, f.Budget)
		s = old
	}
	b.Sightings = append(b.Sightings, s)
	slices.SortStableFunc(b.Sightings, func(x, y Sighting) int { return cmp.Compare(bugid.Rank(x.Check), bugid.Rank(y.Check)) })
}

// headFirst orders the failures of one group for the head of its row: a
// minimal plan before a cut one, then the plainest plan (the fewest
// ingredients: what shows the mistake with nothing else going on; then
// the fewest retries after a fault: a fault's partial effect before the
// duplicate its retry makes), then the more severe check, then the fewer
// calls.
func headFirst(f, g *Failure) int {
	minimalFirst := func(f *Failure) int {
		if f.NotMinimal {
			return 1
		}
		return 0
	}
	return cmp.Or(minimalFirst(f)-minimalFirst(g), cmp.Compare(shrink.NumIngredients(f.Plan), shrink.NumIngredients(g.Plan)),
		cmp.Compare(shrink.Retries(f.Plan), shrink.Retries(g.Plan)),
		cmp.Compare(bugid.Rank(f.Check), bugid.Rank(g.Check)), cmp.Compare(f.Plan.NumCalls(), g.Plan.NumCalls()))
}

// sightingWhy is why a failure is a reported bug seen again: the inputs
// without which its check does not show, or (none) its plan is the bug's
// or holds it; over, the restarts, faults or bursts both plans need
// (sightingOver).
type sightingWhy struct {
	shared []shrink.Ingredient
	over   bool
	// after: its plan is the bug's with the retry of a faulted call
	// (sightingAfter).
	after bool
}

func (w sightingWhy) String() string {
	if w.after {
		return "its plan is the bug's with the retry of a faulted call, and its check needs the fault"
	}
	if len(w.shared) == 0 {
		return "its plan is the bug's, or holds it, and shows the bug's own check"
	}
	if w.over {
		return "its plan is the bug's with an input of its own, leaves the bug's wrong rows beside its own check, and like the bug's needs the " +
			strings.Join(shrink.Names(w.shared), " and ")
	}
	return "without the " + strings.Join(shrink.Names(w.shared), " and ") + " it shares with the bug's plan, its check does not show"
}

// sightingNote says in a run's notes that a failure was filed under a
// reported bug.
func sightingNote(f *Failure, b *Failure, why sightingWhy) string {
	return fmt.Sprintf("%s (%s) is listed under the bug %s: %s", f.Bug, f.Plan.Compact(), b.Check, why)
}
