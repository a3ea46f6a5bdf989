package bugid

import (
	"slices"

	"github.com/idemstress/idemstress/checks"
)

// Rank is a check's place in the catalogue: lower is more severe.
func Rank(id checks.ID) int {
	_, r := checks.Lookup(id)
	return r
}

// SameID reports whether two identities name one bug: the same kind, in
// the same transition.
func SameID(a, b ID) bool { return SameKind(a, b) && a.Transition == b.Transition }

// SameKind reports whether two identities are one kind of mistake,
// whatever transition showed it: sameBug checks, the same status class
// and the same rows.
func SameKind(a, b ID) bool {
	return SameBug(a.Check, b.Check) && a.Status == b.Status && a.Rows == b.Rows
}

// NewBug is the identity a failing plan counts for: the most severe one
// among ids no reported bug stands for; false when there is none.
func NewBug(ids []ID, known func(ID) bool) (ID, bool) {
	i := slices.IndexFunc(ids, func(id ID) bool { return !known(id) })
	if i < 0 {
		return ID{}, false
	}
	return ids[i], true
}

// ViolationOf is the most severe of vs that names bug, if any.
func ViolationOf(vs []checks.Violation, bug checks.ID) (checks.Violation, bool) {
	i := slices.IndexFunc(vs, func(v checks.Violation) bool { return SameBug(v.Check, bug) })
	if i < 0 {
		return checks.Violation{}, false
	}
	return vs[i], true
}

// FateOf says which reported bug a shrunk failure is, seen another way,
// or "" when it is a bug of its own: own is its identity, fired those of
// every violation of its minimal plan. A failure whose shrinking was cut
// (not minimal) is only ever the same bug seen again.
func FateOf(own ID, fired []ID, known func(ID) bool, minimal bool) string {
	if known(own) {
		return "the same as a reported bug (" + own.String() + ")"
	}
	if !minimal || own.Transition != InBurst {
		return ""
	}
	if i := slices.IndexFunc(fired, func(id ID) bool { return Rank(id.Check) < Rank(own.Check) && known(id) }); i >= 0 {
		return "a symptom of the reported " + fired[i].String() + " under the same race"
	}
	return ""
}

// ExplainsRace reports whether seq, the identities a racy failure's plan
// showed with its bursts sent one call after another, explains the race's
// own identity: every one reported, one of them the same kind of bug or a
// more severe check.
func ExplainsRace(own ID, seq []ID, known func(ID) bool) bool {
	return len(seq) > 0 && !slices.ContainsFunc(seq, func(id ID) bool { return !known(id) }) &&
		slices.ContainsFunc(seq, func(id ID) bool { return SameKind(id, own) || Rank(id.Check) < Rank(own.Check) })
}

// ShowsAgain says whether a candidate whose violations have identities ids
// shows the bug being shrunk again, and as what. Unlike rapid, this pass takes
// a smaller plan whose message differs (the same tenant leak seen through
// a conflict, then through a replayed ID): the kind of bug (sameKind) is
// what names it, whatever transition shows it now (a duplicate first seen
// in a burst that shows in sequence too), but a duplicate in another table
// or a wrong status of another class is another bug. It also takes one
// that counts for a more severe new bug: the same mistake seen closer, as
// when a changed payload refused as equivalent (005) turns out, with one
// call fewer, to be another tenant's action (007). A candidate that shows
// only other bugs already reported is no use here.
func ShowsAgain(ids []ID, bug ID, known func(ID) bool) (ID, bool) {
	if i := slices.IndexFunc(ids, func(id ID) bool { return !known(id) }); i >= 0 && (SameKind(ids[i], bug) || Rank(ids[i].Check) < Rank(bug.Check)) {
		return ids[i], true
	}
	if i := slices.IndexFunc(ids, func(id ID) bool { return SameKind(id, bug) }); i >= 0 {
		return ids[i], true
	}
	return ID{}, false
}

// SameBug reports whether two primary checks name one bug for shrinking:
// the same check, or two ways the target took a call for another action
// (another tenant's, or a folded key's). A plan with three calls can be
// read either way, and only its minimal plan, with two, says which.
func SameBug(a, b checks.ID) bool {
	confusion := func(id checks.ID) bool { return id == checks.TenantLeak || id == checks.KeysFolded }
	return a == b || confusion(a) && confusion(b)
}
