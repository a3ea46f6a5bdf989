package findings

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// Sighting is a reported bug seen another way: a shrunk failure whose
// check needs what the bug's minimal plan needs (internal/sighting says when).
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

// Overlaps reports whether some identity of fired is the same kind of
// mistake as one of group's.
func Overlaps(fired, group []bugid.ID) bool {
	return slices.ContainsFunc(fired, func(id bugid.ID) bool {
		return slices.ContainsFunc(group, func(g bugid.ID) bool { return bugid.SameKind(g, id) })
	})
}

// Holds reports whether failure f, firing fired, is reported bug b by its
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
func Holds(b, f *Failure, own bugid.ID, fired []bugid.ID) bool {
	ids := []bugid.ID{b.id}
	for _, s := range b.Sightings {
		ids = append(ids, s.id)
	}
	if Overlaps(fired, ids) && shrink.Within(f.Plan, b.Plan) {
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

// See files f as a sighting of reported bug b, for the reason why: the
// row takes the one that heads the group (headFirst), the other is listed
// under it.
func See(b, f *Failure, why Why) {
	s := Sighting{Check: f.Check, Bug: f.Bug, Plan: f.Plan, History: f.History, Violations: f.Violations, NotMinimal: f.NotMinimal,
		Shared: shrink.Names(why.Shared), Why: why.String(), id: f.id}
	if HeadFirst(f, b) < 0 {
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

// HeadFirst orders the failures of one group for the head of its row: a
// minimal plan before a cut one, then the plainest plan (the fewest
// ingredients: what shows the mistake with nothing else going on; then
// the fewest retries after a fault: a fault's partial effect before the
// duplicate its retry makes), then the more severe check, then the fewer
// calls.
func HeadFirst(f, g *Failure) int {
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
type Why struct {
	Shared []shrink.Ingredient
	Over   bool
	// after: its plan is the bug's with the retry of a faulted call
	// (sightingAfter).
	After bool
}

func (w Why) String() string {
	if w.After {
		return "its plan is the bug's with the retry of a faulted call, and its check needs the fault"
	}
	if len(w.Shared) == 0 {
		return "its plan is the bug's, or holds it, and shows the bug's own check"
	}
	if w.Over {
		return "its plan is the bug's with an input of its own, leaves the bug's wrong rows beside its own check, and like the bug's needs the " +
			strings.Join(shrink.Names(w.Shared), " and ")
	}
	return "without the " + strings.Join(shrink.Names(w.Shared), " and ") + " it shares with the bug's plan, its check does not show"
}

// sightingNote says in a run's notes that a failure was filed under a
// reported bug.
func Note(f *Failure, b *Failure, why Why) string {
	return fmt.Sprintf("%s (%s) is listed under the bug %s: %s", f.Bug, f.Plan.Compact(), b.Check, why)
}

// AfterOneFault reports whether one of b's and f's plans (rich) is the
// other's with retries of its faulted calls added, by the plans alone.
func AfterOneFault(b, f *Failure) (rich *Failure, ok bool) {
	for _, pair := range [][2]*Failure{{f, b}, {b, f}} {
		rich, plain := pair[0], pair[1]
		bare := shrink.WithoutRetries(rich.Plan)
		if len(bare.Steps) == len(rich.Plan.Steps) || !shrink.Faulted(plain.Plan) {
			continue
		}
		if shrink.Within(bare, plain.Plan) && shrink.Within(plain.Plan, bare) {
			return rich, true
		}
	}
	return nil, false
}

// OverOneMistake reports whether reported bug b (firing bFired) and
// failure f (firing fFired) may be one mistake over a restart, fault or
// burst, by their plans alone: one is the other's with inputs of its own
// added, it left every wrong row the other's left, and over are
// the restarts, faults and bursts both have (internal/sighting/over.go).
func OverOneMistake(b, f *Failure, bFired, fFired []bugid.ID) (over []shrink.Ingredient, ok bool) {
	rich, plain, richFired, plainFired := f, b, fFired, bFired
	if len(ownInputs(f, b)) == 0 {
		rich, plain, richFired, plainFired = b, f, bFired, fFired
	}
	added := ownInputs(rich, plain)
	if len(added) == 0 || len(ownInputs(plain, rich)) > 0 {
		return nil, false
	}
	bare := shrink.StripAll(rich.Plan, added)
	if !shrink.Within(bare, plain.Plan) || !shrink.Within(plain.Plan, bare) {
		return nil, false
	}
	if !leavesRowsOf(richFired, plainFired) {
		return nil, false
	}
	for _, in := range shrink.Ingredients {
		if !in.Input && in.Has(b.Plan) && in.Has(f.Plan) {
			over = append(over, in)
		}
	}
	return over, len(over) > 0
}

// leavesRowsOf reports whether a plan that fired rich left every wrong
// row one that fired plain left, and plain left some: what a mistake
// writes is the same whatever the calls send, where the answers a check
// expects change with the input (a second ID for the same payload is
// IDEM-003, for a changed one IDEM-004's).
func leavesRowsOf(rich, plain []bugid.ID) bool {
	rows := slices.DeleteFunc(slices.Clone(plain), func(p bugid.ID) bool { return p.Rows == "" })
	return len(rows) > 0 && !slices.ContainsFunc(rows, func(p bugid.ID) bool {
		return !slices.ContainsFunc(rich, func(q bugid.ID) bool { return bugid.SameKind(p, q) })
	})
}

// ownInputs are the input ingredients x's plan has and y's lacks.
func ownInputs(x, y *Failure) []shrink.Ingredient {
	var out []shrink.Ingredient
	for _, in := range shrink.Ingredients {
		if in.Input && in.Has(x.Plan) && !in.Has(y.Plan) {
			out = append(out, in)
		}
	}
	return out
}
