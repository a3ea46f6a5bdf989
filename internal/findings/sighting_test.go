package findings

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// Which pairs of plans may be one mistake seen with and without the retry
// that follows a fault, whichever was reported first.
func TestAfterOneFault(t *testing.T) {
	errored := c1("A", "k1", 0)
	errored.Fault = model.FaultDBError
	crashed := c1("A", "k1", 0)
	crashed.Fault = model.FaultCrash
	fail := func(p model.Plan) *Failure { return &Failure{Plan: p} }
	alone := fail(planOf(seqOf(errored)))
	retried := fail(planOf(seqOf(errored, c1("A", "k1", 0))))
	renamed := fail(planOf(seqOf(c1("B", "k2", 0))))
	renamed.Plan.Steps[0].Calls[0].Fault = model.FaultDBError
	crashAlone := fail(planOf(seqOf(crashed), one(restartStep)))
	crashRetried := fail(planOf(seqOf(crashed), one(restartStep), seqOf(c1("A", "k1", 0))))
	for _, tc := range []struct {
		name string
		b, f *Failure
		rich *Failure
	}{
		{"the retry's duplicate after the partial effect", alone, retried, retried},
		{"the partial effect after the retry's duplicate", retried, alone, retried},
		{"tenants and keys renamed", renamed, retried, retried},
		{"a crash, its restart and the retry", crashAlone, crashRetried, crashRetried},
		{"a changed payload is no retry", alone, fail(planOf(seqOf(errored, c1("A", "k1", 1)))), nil},
		{"another action's call is no retry", alone, fail(planOf(seqOf(errored, c1("A", "k2", 0)))), nil},
		{"no fault: two calls are a sequential retry", fail(planOf(seqOf(c1("A", "k1", 0)))), fail(planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0)))), nil},
		{"the same plan", alone, fail(planOf(seqOf(errored))), nil},
	} {
		rich, ok := AfterOneFault(tc.b, tc.f)
		if ok != (tc.rich != nil) || rich != tc.rich {
			t.Errorf("%s: rich %v (ok %v), want %v", tc.name, rich, ok, tc.rich)
		}
	}
}

// A fault's partial effect heads the row before the duplicate its retry
// makes, though a duplicate is the more severe check: the plan without
// the retry is the plainer.
func TestHeadFirstPrefersThePlanWithoutTheRetry(t *testing.T) {
	errored := c1("A", "k1", 0)
	errored.Fault = model.FaultDBError
	partial := &Failure{Check: checks.MissingEffect, Plan: planOf(seqOf(errored))}
	duplicate := &Failure{Check: checks.DuplicateEffect, Plan: planOf(seqOf(errored, c1("A", "k1", 0)))}
	if HeadFirst(partial, duplicate) >= 0 || HeadFirst(duplicate, partial) <= 0 {
		t.Errorf("headFirst(partial, duplicate) = %d, want the partial effect first", HeadFirst(partial, duplicate))
	}
}

// Which pairs of plans may be one mistake over a restart, fault or burst,
// whichever of the two was reported first.
func TestOverOneMistake(t *testing.T) {
	dupTickets := bugid.ID{Check: checks.DuplicateEffect, Transition: bugid.AfterRestart, Rows: ticketDup}
	dupOutbox := bugid.ID{Check: checks.DuplicateEffect, Transition: bugid.AfterRestart, Rows: outboxDup}
	changedID := bugid.ID{Check: checks.ChangedAccepted, Transition: bugid.AfterRestart}
	unstable := bugid.ID{Check: checks.UnstableResponse, Transition: bugid.AfterRestart}
	fail := func(p model.Plan) *Failure { return &Failure{Plan: p} }
	restarted := fail(planOf(seqOf(a1), one(restartStep), seqOf(a1)))
	changedAfter := fail(planOf(seqOf(a1), one(restartStep), seqOf(a1b)))
	for _, tc := range []struct {
		name   string
		b, f   *Failure
		bFired []bugid.ID
		fFired []bugid.ID
		want   []string
	}{
		{"the changed payload after the duplicate", restarted, changedAfter,
			[]bugid.ID{dupOutbox, dupTickets, unstable}, []bugid.ID{dupOutbox, dupTickets, changedID}, []string{"restart"}},
		{"the duplicate after the changed payload", changedAfter, restarted,
			[]bugid.ID{dupOutbox, dupTickets, changedID}, []bugid.ID{dupOutbox, dupTickets, unstable}, []string{"restart"}},
		{"a wrong row the changed payload does not leave", restarted, changedAfter,
			[]bugid.ID{dupOutbox, dupTickets, unstable}, []bugid.ID{dupTickets, changedID}, nil},
		{"answers only", restarted, changedAfter, []bugid.ID{unstable}, []bugid.ID{unstable, changedID}, nil},
		{"the changed payload does not show the duplicate's outbox row", restarted, changedAfter,
			[]bugid.ID{dupOutbox}, []bugid.ID{changedID}, nil},
		{"nothing over a restart: outbox-on-retry and no-payload-check", fail(planOf(seqOf(a1, a1))), fail(planOf(seqOf(a1, a1b))),
			[]bugid.ID{{Check: checks.DuplicateEffect, Transition: bugid.InSequence, Rows: outboxDup}},
			[]bugid.ID{{Check: checks.DuplicateEffect, Transition: bugid.InSequence, Rows: outboxDup}, {Check: checks.ChangedAccepted, Transition: bugid.InSequence}}, nil},
		{"a hang of a burst and a 500 to its loser", fail(planOf(one(burstOf(a1, a1)))), fail(planOf(one(burstOf(a1, a1b)))),
			[]bugid.ID{{Check: checks.NoAnswer, Transition: bugid.InBurst}}, []bugid.ID{{Check: checks.WrongStatus, Transition: bugid.InBurst, Status: "5xx"}}, nil},
		{"other calls over the restart", restarted, fail(planOf(seqOf(a1), one(restartStep), seqOf(a1b, a1b))),
			[]bugid.ID{dupTickets}, []bugid.ID{dupTickets, changedID}, nil},
		{"no input of either's own", restarted, restarted, []bugid.ID{dupTickets}, []bugid.ID{dupTickets}, nil},
	} {
		over, ok := OverOneMistake(tc.b, tc.f, tc.bFired, tc.fFired)
		if got := shrink.Names(over); ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: over %q (%v), want %q", tc.name, got, ok, tc.want)
		}
	}
}

// The group's row is its plainest plan, whichever was seen first.
func TestSeeKeepsTheMostSevereAsTheRow(t *testing.T) {
	plan := func(steps ...model.Step) model.Plan { return model.Plan{Steps: steps} }
	queried := a1b
	queried.Noise = model.NoiseQuery
	b := &Failure{Check: checks.ChangedAccepted, Bug: "IDEM-004 in sequence", Plan: plan(callOf(a1), callOf(queried))}
	dup := queried
	dup.Variant = 0
	f := &Failure{Check: checks.DuplicateEffect, Plan: plan(callOf(a1), callOf(dup))}
	f.Bug = "IDEM-001 in sequence"
	See(b, f, Why{Shared: []shrink.Ingredient{shrink.Ingredients[2]}})
	if b.Check != checks.DuplicateEffect || b.Bug != "IDEM-001 in sequence" || b.Plan.String() != f.Plan.String() {
		t.Errorf("the row is %s with %s, want the duplicate", b.Bug, b.Plan.Compact())
	}
	if len(b.Sightings) != 1 || b.Sightings[0].Check != checks.ChangedAccepted {
		t.Errorf("sightings %+v, want the IDEM-004 listed under the row", b.Sightings)
	}
	// A plan with more ingredients is listed under the row as it is,
	// though its check is more severe.
	lost := dup
	lost.Fault = model.FaultLoseReply
	g := &Failure{Check: checks.TenantLeak, Plan: plan(callOf(lost), callOf(dup))}
	g.Bug = "IDEM-007 in sequence"
	See(b, g, Why{Shared: []shrink.Ingredient{shrink.Ingredients[2]}})
	if b.Check != checks.DuplicateEffect || len(b.Sightings) != 2 || b.Sightings[0].Check != checks.TenantLeak {
		t.Errorf("row %s with sightings %+v", b.Bug, b.Sightings)
	}
}

// A failure whose plan is a reported bug's, and fires that bug's own
// check, is that bug; one whose minimal plan does more is its own, though
// it fires the reported one's check too.
func TestHolds(t *testing.T) {
	restart := model.Step{Kind: model.StepRestart}
	k4, k4q := model.Call{Tenant: "A", Key: "k4"}, model.Call{Tenant: "A", Key: "k4", Noise: model.NoiseQuery}
	outbox := bugid.ID{Check: checks.DuplicateEffect, Transition: bugid.AfterRestart, Rows: outboxDup}
	tickets := bugid.ID{Check: checks.DuplicateEffect, Transition: bugid.AfterRestart, Rows: ticketDup}
	cut := &Failure{Check: checks.DuplicateEffect, Plan: model.Plan{Steps: []model.Step{callOf(k4), restart, callOf(k4q)}}, NotMinimal: true, id: outbox}
	again := &Failure{Check: checks.DuplicateEffect, Plan: model.Plan{Steps: []model.Step{callOf(a1), restart, callOf(a1)}}, id: tickets}
	if !Holds(cut, again, tickets, []bugid.ID{tickets, outbox}) {
		t.Errorf("the duplicate ticket after a restart is not the cut outbox duplicate's plan seen again")
	}
	if Holds(cut, again, tickets, []bugid.ID{tickets}) {
		t.Errorf("a failure that does not fire the bug's own check was taken for it")
	}
	crashed := a1
	crashed.Fault = model.FaultCrash
	partial := bugid.ID{Check: checks.MissingEffect, Transition: bugid.InSequence, Rows: "IDEM-002 partial"}
	stuck := bugid.ID{Check: checks.StuckAction, Transition: bugid.AfterRestart}
	b := &Failure{Check: checks.MissingEffect, Plan: model.Plan{Steps: []model.Step{callOf(crashed), restart}}, id: partial}
	f := &Failure{Check: checks.StuckAction, Plan: model.Plan{Steps: []model.Step{callOf(crashed), restart, callOf(a1)}}, id: stuck}
	if Holds(b, f, stuck, []bugid.ID{stuck, partial}) {
		t.Errorf("a stuck key whose minimal plan holds the partial effect's and does more was taken for it")
	}
	f.NotMinimal = true
	if !Holds(b, f, stuck, []bugid.ID{stuck, partial}) {
		t.Errorf("a cut plan that holds the partial effect's and fires it is not that bug seen again")
	}
	// non-atomic: the retry answered ok words the missing outbox row
	// otherwise; a cut plan holding the partial effect's is still it.
	b.id.Rows = "IDEM-002 missing effect: a partial effect: an action has rows in tickets but fewer than 1 row(s) in notification_outbox"
	answered := bugid.ID{Check: checks.MissingEffect, Transition: bugid.AfterRestart, Rows: "IDEM-002 missing effect: an action answered ok has fewer than 1 row(s) in notification_outbox"}
	f.Check, f.id = checks.MissingEffect, answered
	if !Holds(b, f, answered, []bugid.ID{answered}) {
		t.Errorf("a cut plan holding the partial effect's plan and firing IDEM-002 is not that bug")
	}
	f.NotMinimal = false
	if !Holds(b, f, answered, []bugid.ID{answered}) {
		t.Errorf("the missing outbox row after an answered retry is not the partial effect's")
	}
	other := answered
	other.Rows = "IDEM-002 missing effect: an action answered ok has fewer than 1 row(s) in tickets"
	if Holds(b, f, other, []bugid.ID{other}) {
		t.Errorf("a missing ticket was taken for a missing outbox row")
	}
	// Two cut plans say too little to be one bug.
	f.NotMinimal, b.NotMinimal = true, true
	if Holds(b, f, answered, []bugid.ID{answered}) {
		t.Errorf("a cut plan was taken for another cut plan's bug")
	}
	// A duplicate in a burst is not the duplicate of a retry in sequence.
	retry := &Failure{Check: checks.DuplicateEffect, Plan: model.Plan{Steps: []model.Step{callOf(a1), callOf(a1)}}, id: outbox}
	race := &Failure{Check: checks.DuplicateEffect, Plan: model.Plan{Steps: []model.Step{burstOf(a1, a1)}}}
	if Holds(retry, race, tickets, []bugid.ID{tickets, outbox}) {
		t.Errorf("a burst's duplicate was taken for a retry's in sequence")
	}
}
