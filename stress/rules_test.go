package stress

import (
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

var (
	outboxDupSeq  = bugID{Check: checks.DuplicateEffect, Transition: InSequence, Rows: "IDEM-001 duplicate effect: an action has more than 1 row(s) in notification_outbox"}
	ticketDupRace = bugID{Check: checks.DuplicateEffect, Transition: inBurst, Rows: "IDEM-001 duplicate effect: an action has more than 1 row(s) in tickets"}
	falseStatus   = bugID{Check: checks.WrongStatus, Transition: InSequence, Status: "not 5xx"}
	raceStatus    = bugID{Check: checks.WrongStatus, Transition: inBurst, Status: "5xx"}
	changedSeq    = bugID{Check: checks.ChangedAccepted, Transition: InSequence}
	changedRace   = bugID{Check: checks.ChangedAccepted, Transition: inBurst}
	equalSeq      = bugID{Check: checks.EqualRejected, Transition: InSequence}
	leakSeq       = bugID{Check: checks.TenantLeak, Transition: InSequence}
	foldedSeq     = bugID{Check: checks.KeysFolded, Transition: InSequence}
)

func knownOf(ids ...bugID) func(bugID) bool {
	return func(id bugID) bool { return slices.ContainsFunc(ids, func(k bugID) bool { return sameID(k, id) }) }
}

// Which failing plan counts for a new bug: the first identity no reported
// bug stands for, not the first check.
func TestNewBug(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []bugID
		known []bugID
		want  bugID
		ok    bool
	}{
		{"nothing known", []bugID{outboxDupSeq}, nil, outboxDupSeq, true},
		{"the same bug again", []bugID{outboxDupSeq}, []bugID{outboxDupSeq}, bugID{}, false},
		// Issue 16.8: a false IDEM-008 must not hide a true one.
		{"a 500 under a burst after a false 4xx", []bugID{raceStatus}, []bugID{falseStatus}, raceStatus, true},
		{"a duplicate ticket under a burst after a duplicate outbox row", []bugID{ticketDupRace}, []bugID{outboxDupSeq}, ticketDupRace, true},
		// Issue 17.6: the plan A/k1 v0; A/k1 v1 fires 001 and 004.
		{"a changed payload beside a reported duplicate", []bugID{outboxDupSeq, changedSeq}, []bugID{outboxDupSeq}, changedSeq, true},
		{"a tenant leak is a folded key", []bugID{foldedSeq}, []bugID{leakSeq}, bugID{}, false},
	} {
		got, ok := newBug(tc.ids, knownOf(tc.known...))
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
		own     bugID
		fired   []bugID
		known   []bugID
		minimal bool
		same    bool
	}{
		{"its own identity is reported", outboxDupSeq, []bugID{outboxDupSeq}, []bugID{outboxDupSeq}, true, true},
		{"a changed payload accepted in a race that duplicates", changedRace, []bugID{ticketDupRace, changedRace}, []bugID{ticketDupRace}, true, true},
		// Issue 17.6: in sequence, a changed payload replayed is a bug
		// of its own, whatever duplicate the same plan shows.
		{"a changed payload accepted in sequence", changedSeq, []bugID{outboxDupSeq, changedSeq}, []bugID{outboxDupSeq}, true, false},
		{"a race beside only less severe reported bugs", ticketDupRace, []bugID{ticketDupRace, equalSeq}, []bugID{equalSeq}, true, false},
		// Issue 16.9: a half-shrunk plan proves nothing by what it
		// fires beside its own check.
		{"not minimal", changedRace, []bugID{ticketDupRace, changedRace}, []bugID{ticketDupRace}, false, false},
		{"not minimal but the same bug", outboxDupSeq, []bugID{outboxDupSeq}, []bugID{outboxDupSeq}, false, true},
	} {
		if got := fateOf(tc.own, tc.fired, knownOf(tc.known...), tc.minimal); (got != "") != tc.same {
			t.Errorf("%s: fate %q, want attributed %v", tc.name, got, tc.same)
		}
	}
}

// A race is explained by its calls sent one after another only when they
// show the same kind of bug or a more severe one, and nothing new.
func TestExplainsRace(t *testing.T) {
	for _, tc := range []struct {
		name  string
		own   bugID
		seq   []bugID
		known []bugID
		want  bool
	}{
		{"not linearizable in a burst, a tenant leak in sequence", bugID{Check: checks.NotLinearizable, Transition: inBurst}, []bugID{leakSeq}, []bugID{leakSeq}, true},
		{"a duplicate in a burst, the same duplicate in sequence", ticketDupRace, []bugID{{Check: checks.DuplicateEffect, Transition: InSequence, Rows: ticketDupRace.Rows}},
			[]bugID{{Check: checks.DuplicateEffect, Transition: InSequence, Rows: ticketDupRace.Rows}}, true},
		// Issue 16.8: on a service whose replay is misread as 005, a
		// check-then-insert duplicate shows in sequence as 005 only.
		{"a duplicate in a burst, a misread replay in sequence", ticketDupRace, []bugID{equalSeq}, []bugID{equalSeq}, false},
		{"a duplicate ticket in a burst, a duplicate outbox row in sequence", ticketDupRace, []bugID{outboxDupSeq}, []bugID{outboxDupSeq}, false},
		{"something new in sequence", bugID{Check: checks.NotLinearizable, Transition: inBurst}, []bugID{leakSeq, changedSeq}, []bugID{leakSeq}, false},
		{"nothing in sequence", bugID{Check: checks.NotLinearizable, Transition: inBurst}, nil, nil, false},
	} {
		if got := explainsRace(tc.own, tc.seq, knownOf(tc.known...)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A shrink candidate fails again when it shows the kind of bug being shrunk in
// any transition, or a more severe new bug.
func TestShowsAgain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ids   []bugID
		known []bugID
		bug   bugID
		want  checks.ID
	}{
		{"the check being shrunk", []bugID{changedSeq}, nil, changedRace, checks.ChangedAccepted},
		{"the bug being shrunk, now in a known transition", []bugID{outboxDupSeq}, []bugID{outboxDupSeq},
			bugID{Check: checks.DuplicateEffect, Transition: inBurst, Rows: outboxDupSeq.Rows}, checks.DuplicateEffect},
		{"a duplicate in another table", []bugID{outboxDupSeq}, []bugID{outboxDupSeq}, ticketDupRace, ""},
		{"a wrong status of another class", []bugID{falseStatus}, []bugID{falseStatus}, raceStatus, ""},
		{"a more severe new bug", []bugID{leakSeq}, nil, equalSeq, checks.TenantLeak},
		{"only a more severe known bug", []bugID{outboxDupSeq}, []bugID{outboxDupSeq}, changedSeq, ""},
		{"a less severe new bug", []bugID{equalSeq}, nil, ticketDupRace, ""},
	} {
		got, _ := showsAgain(tc.ids, tc.bug, knownOf(tc.known...))
		if got.Check != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got.Check, tc.want)
		}
	}
}

// A shrink's budget fits shrinkCandidates runs of the failing plan: a plan
// that waits out a 10 s call timeout gets more than 30 s.
func TestShrinkBudget(t *testing.T) {
	for _, tc := range []struct{ shrink, took, want time.Duration }{
		{30 * time.Second, 100 * time.Millisecond, 30 * time.Second},
		{30 * time.Second, 10 * time.Second, shrinkCandidates * 10 * time.Second},
		{0, time.Second, shrinkCandidates * time.Second},
	} {
		if got := shrinkBudget(tc.shrink, tc.took); got != tc.want {
			t.Errorf("shrinkBudget(%s, %s) = %s, want %s", tc.shrink, tc.took, got, tc.want)
		}
	}
}

// Root causes first: a bug whose minimal plan is inside another's comes
// before it, whatever their severity; unrelated bugs by severity.
func TestOrderBugs(t *testing.T) {
	refused := c1("A", "k1", 0)
	refused.Encoding = 4
	otherRefused := refused
	otherRefused.Tenant = "B"
	bug := func(id checks.ID, p model.Plan) *Failure { return &Failure{Check: id, Plan: p} }
	leak := bug(checks.TenantLeak, planOf(seqOf(c1("A", "k1", 0), otherRefused)))
	status := bug(checks.WrongStatus, planOf(seqOf(refused)))
	changed := bug(checks.ChangedAccepted, planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 1))))
	dup := bug(checks.DuplicateEffect, planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))))
	bugs := []*Failure{leak, changed, dup, status}
	orderBugs(bugs)
	var got []checks.ID
	for _, b := range bugs {
		got = append(got, b.Check)
	}
	// The refused re-encoding (008) is inside the tenant leak's plan
	// (B/k1 renamed A/k1): it leads. 001 and 004 derive from nothing.
	want := []checks.ID{checks.DuplicateEffect, checks.ChangedAccepted, checks.WrongStatus, checks.TenantLeak}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v: the refused re-encoding (IDEM-008) before the tenant leak it causes", got, want)
	}
}
