package bugid

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
)

var (
	outboxDupSeq  = ID{Check: checks.DuplicateEffect, Transition: InSequence, Rows: "IDEM-001 duplicate effect: an action has more than 1 row(s) in notification_outbox"}
	ticketDupRace = ID{Check: checks.DuplicateEffect, Transition: InBurst, Rows: "IDEM-001 duplicate effect: an action has more than 1 row(s) in tickets"}
	falseStatus   = ID{Check: checks.WrongStatus, Transition: InSequence, Status: "not 5xx"}
	raceStatus    = ID{Check: checks.WrongStatus, Transition: InBurst, Status: "5xx"}
	changedSeq    = ID{Check: checks.ChangedAccepted, Transition: InSequence}
	changedRace   = ID{Check: checks.ChangedAccepted, Transition: InBurst}
	equalSeq      = ID{Check: checks.EqualRejected, Transition: InSequence}
	leakSeq       = ID{Check: checks.TenantLeak, Transition: InSequence}
	foldedSeq     = ID{Check: checks.KeysFolded, Transition: InSequence}
)

func knownOf(ids ...ID) func(ID) bool {
	return func(id ID) bool { return slices.ContainsFunc(ids, func(k ID) bool { return SameID(k, id) }) }
}

// Which failing plan counts for a new bug: the first identity no reported
// bug stands for, not the first check.
func TestNewBug(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []ID
		known []ID
		want  ID
		ok    bool
	}{
		{"nothing known", []ID{outboxDupSeq}, nil, outboxDupSeq, true},
		{"the same bug again", []ID{outboxDupSeq}, []ID{outboxDupSeq}, ID{}, false},
		// Issue 16.8: a false IDEM-008 must not hide a true one.
		{"a 500 under a burst after a false 4xx", []ID{raceStatus}, []ID{falseStatus}, raceStatus, true},
		{"a duplicate ticket under a burst after a duplicate outbox row", []ID{ticketDupRace}, []ID{outboxDupSeq}, ticketDupRace, true},
		// Issue 17.6: the plan A/k1 v0; A/k1 v1 fires 001 and 004.
		{"a changed payload beside a reported duplicate", []ID{outboxDupSeq, changedSeq}, []ID{outboxDupSeq}, changedSeq, true},
		{"a tenant leak is a folded key", []ID{foldedSeq}, []ID{leakSeq}, ID{}, false},
	} {
		got, ok := NewBug(tc.ids, knownOf(tc.known...))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// When a shrunk failure is a reported bug seen another way, and when it
// is a bug of its own.
func TestFateOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		own     ID
		fired   []ID
		known   []ID
		minimal bool
		same    bool
	}{
		{"its own identity is reported", outboxDupSeq, []ID{outboxDupSeq}, []ID{outboxDupSeq}, true, true},
		{"a changed payload accepted in a race that duplicates", changedRace, []ID{ticketDupRace, changedRace}, []ID{ticketDupRace}, true, true},
		// Issue 17.6: in sequence, a changed payload replayed is a bug
		// of its own, whatever duplicate the same plan shows.
		{"a changed payload accepted in sequence", changedSeq, []ID{outboxDupSeq, changedSeq}, []ID{outboxDupSeq}, true, false},
		{"a race beside only less severe reported bugs", ticketDupRace, []ID{ticketDupRace, equalSeq}, []ID{equalSeq}, true, false},
		// Issue 16.9: a half-shrunk plan proves nothing by what it
		// fires beside its own check.
		{"not minimal", changedRace, []ID{ticketDupRace, changedRace}, []ID{ticketDupRace}, false, false},
		{"not minimal but the same bug", outboxDupSeq, []ID{outboxDupSeq}, []ID{outboxDupSeq}, false, true},
	} {
		if got := FateOf(tc.own, tc.fired, knownOf(tc.known...), tc.minimal); (got != "") != tc.same {
			t.Errorf("%s: fate %q, want attributed %v", tc.name, got, tc.same)
		}
	}
}

// A race is explained by its calls sent one after another only when they
// show the same kind of bug or a more severe one, and nothing new.
func TestExplainsRace(t *testing.T) {
	for _, tc := range []struct {
		name  string
		own   ID
		seq   []ID
		known []ID
		want  bool
	}{
		{"not linearizable in a burst, a tenant leak in sequence", ID{Check: checks.NotLinearizable, Transition: InBurst}, []ID{leakSeq}, []ID{leakSeq}, true},
		{"a duplicate in a burst, the same duplicate in sequence", ticketDupRace, []ID{{Check: checks.DuplicateEffect, Transition: InSequence, Rows: ticketDupRace.Rows}},
			[]ID{{Check: checks.DuplicateEffect, Transition: InSequence, Rows: ticketDupRace.Rows}}, true},
		// Issue 16.8: on a service whose replay is misread as 005, a
		// check-then-insert duplicate shows in sequence as 005 only.
		{"a duplicate in a burst, a misread replay in sequence", ticketDupRace, []ID{equalSeq}, []ID{equalSeq}, false},
		{"a duplicate ticket in a burst, a duplicate outbox row in sequence", ticketDupRace, []ID{outboxDupSeq}, []ID{outboxDupSeq}, false},
		{"something new in sequence", ID{Check: checks.NotLinearizable, Transition: InBurst}, []ID{leakSeq, changedSeq}, []ID{leakSeq}, false},
		{"nothing in sequence", ID{Check: checks.NotLinearizable, Transition: InBurst}, nil, nil, false},
	} {
		if got := ExplainsRace(tc.own, tc.seq, knownOf(tc.known...)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A shrink candidate fails again when it shows the kind of bug being shrunk in
// any transition, or a more severe new bug.
func TestShowsAgain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []ID
		known []ID
		bug   ID
		want  checks.ID
	}{
		{"the check being shrunk", []ID{changedSeq}, nil, changedRace, checks.ChangedAccepted},
		{"the bug being shrunk, now in a known transition", []ID{outboxDupSeq}, []ID{outboxDupSeq},
			ID{Check: checks.DuplicateEffect, Transition: InBurst, Rows: outboxDupSeq.Rows}, checks.DuplicateEffect},
		{"a duplicate in another table", []ID{outboxDupSeq}, []ID{outboxDupSeq}, ticketDupRace, ""},
		{"a wrong status of another class", []ID{falseStatus}, []ID{falseStatus}, raceStatus, ""},
		{"a more severe new bug", []ID{leakSeq}, nil, equalSeq, checks.TenantLeak},
		{"only a more severe known bug", []ID{outboxDupSeq}, []ID{outboxDupSeq}, changedSeq, ""},
		{"a less severe new bug", []ID{equalSeq}, nil, ticketDupRace, ""},
	} {
		got, _ := ShowsAgain(tc.ids, tc.bug, knownOf(tc.known...))
		if got.Check != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got.Check, tc.want)
		}
	}
}

// A tenant leak and a folded key are one bug to the shrinker; every other
// pair of checks is two.
func TestSameBug(t *testing.T) {
	if !SameBug(checks.TenantLeak, checks.KeysFolded) || !SameBug(checks.KeysFolded, checks.TenantLeak) || !SameBug(checks.DuplicateEffect, checks.DuplicateEffect) {
		t.Error("a confusion between actions is one bug")
	}
	if SameBug(checks.TenantLeak, checks.DuplicateEffect) || SameBug(checks.ChangedAccepted, checks.EqualRejected) {
		t.Error("different checks are different bugs")
	}
}
