package stress

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// queryInKey: a service whose cache key holds the query string. An action
// called with and without a query parameter creates two tickets; when the
// two calls carry different payloads, the second is answered ok as well.
func queryInKey(c model.Contract, plan model.Plan) []checks.Violation {
	type seen struct{ plain, query []int }
	calls := map[model.Action]*seen{}
	var order []model.Action
	for _, st := range plan.Steps {
		for _, call := range st.Calls {
			if call.NoKey {
				continue
			}
			a := c.ActionOf(call)
			if calls[a] == nil {
				calls[a] = &seen{}
				order = append(order, a)
			}
			if call.Noise == model.NoiseQuery {
				calls[a].query = append(calls[a].query, call.Variant)
			} else {
				calls[a].plain = append(calls[a].plain, call.Variant)
			}
		}
	}
	var vs []checks.Violation
	for _, a := range order {
		s := calls[a]
		if len(s.plain) == 0 || len(s.query) == 0 {
			continue
		}
		vs = append(vs, checks.Violation{Check: checks.DuplicateEffect, Message: ticketDup, Action: a})
		if slices.Min(s.plain) != slices.Max(s.query) || slices.Max(s.plain) != slices.Min(s.query) {
			vs = append(vs, checks.Violation{Check: checks.ChangedAccepted, Message: changed, Action: a})
		}
	}
	return vs
}

// replayChanged: a changed payload under a used key, in a later step, is
// answered with the original (no-payload-check).
func replayChanged(c model.Contract, plan model.Plan) []checks.Violation {
	first := map[model.Action]int{}
	var vs []checks.Violation
	for _, st := range plan.Steps {
		if st.Kind != model.StepCall {
			continue
		}
		for _, call := range st.Calls {
			a := c.ActionOf(call)
			v, ok := first[a]
			switch {
			case call.NoKey:
			case !ok:
				first[a] = call.Variant
			case v != call.Variant:
				vs = append(vs, checks.Violation{Check: checks.ChangedAccepted, Message: changed, Action: a})
			}
		}
	}
	return vs
}

// noPayloadCheck: a changed payload under a used key, in a later step, is
// replayed (IDEM-004); when the reply to the action's first call was
// lost, the check that shows it is the stored fields' (IDEM-010) alone.
func noPayloadCheck(c model.Contract, plan model.Plan) []checks.Violation {
	first := map[model.Action]model.Call{}
	var vs []checks.Violation
	for _, st := range plan.Steps {
		for _, call := range st.Calls {
			a := c.ActionOf(call)
			f, ok := first[a]
			switch {
			case call.NoKey || st.Kind != model.StepCall:
			case !ok:
				first[a] = call
			case f.Variant == call.Variant:
			case f.Fault == model.FaultLoseReply:
				vs = append(vs, checks.Violation{Check: checks.FieldsDiffer, Message: "IDEM-010 stored fields differ", Action: a})
			default:
				vs = append(vs, checks.Violation{Check: checks.ChangedAccepted, Message: changed, Action: a})
			}
		}
	}
	return vs
}

// One root cause is one row: the query-in-key service's changed payload
// accepted is its duplicate seen again (it goes away without the query
// parameter), listed under the duplicate's row. Two mistakes that share no
// input stay two rows, though one's plan fires the other's check.
func TestEngineSightingsOfOneRootCause(t *testing.T) {
	t.Run("a changed payload accepted through the query in the key", func(t *testing.T) {
		cfg := engineConfig(200)
		cfg.World.Noise = []model.Noise{model.NoiseQuery}
		r := runEngine(t, cfg, &scripted{rules: []rule{queryInKey}}, 1)
		if len(r.bugs) != 1 {
			t.Fatalf("%d rows %q, want 1", len(r.bugs), bugNames(r.bugs))
		}
		b := r.bugs[0]
		if b.Check != checks.DuplicateEffect {
			t.Errorf("the row is %s, want the duplicate (IDEM-001)", b.Bug)
		}
		i := slices.IndexFunc(b.Sightings, func(s Sighting) bool { return s.Check == checks.ChangedAccepted })
		if i < 0 {
			t.Fatalf("no IDEM-004 sighting under the row: %+v (notes %q)", b.Sightings, r.notes)
		}
		if s := b.Sightings[i]; !slices.Equal(s.Shared, []string{"request noise"}) || s.Plan.NumCalls() != 2 {
			t.Errorf("sighting %s with %s shares %q; want two calls sharing the request noise", s.Bug, s.Plan.Compact(), s.Shared)
		}
	})
	t.Run("a replayed changed payload seen through a lost reply", func(t *testing.T) {
		cfg := engineConfig(200)
		cfg.World.Faults = []model.Fault{model.FaultLoseReply}
		r := runEngine(t, cfg, &scripted{rules: []rule{noPayloadCheck}}, 1)
		if len(r.bugs) != 1 || r.bugs[0].Check != checks.ChangedAccepted || r.bugs[0].Plan.String() != (model.Plan{Steps: []model.Step{callOf(a1), callOf(a1b)}}).String() {
			t.Fatalf("rows %q, want the IDEM-004 of A/k1 v0; A/k1 v1 alone", bugNames(r.bugs))
		}
		if s := r.bugs[0].Sightings; len(s) != 1 || s[0].Check != checks.FieldsDiffer || !slices.Equal(s[0].Shared, []string{"changed payload"}) {
			t.Errorf("sightings %+v (notes %q), want the IDEM-010 through the lost reply", s, r.notes)
		}
	})
	t.Run("an outbox row on every retry and a replayed changed payload", func(t *testing.T) {
		r := runEngine(t, engineConfig(200), &scripted{rules: []rule{outboxOnRetry, replayChanged}}, 1)
		got := bugNames(r.bugs)
		if len(r.bugs) != 2 || r.bugs[0].Check != checks.DuplicateEffect || r.bugs[1].Check != checks.ChangedAccepted {
			t.Fatalf("rows %q, want the outbox's IDEM-001 and the IDEM-004, each its own", got)
		}
		for _, b := range r.bugs {
			if len(b.Sightings) > 0 {
				t.Errorf("%s has sightings %+v", b.Bug, b.Sightings)
			}
		}
	})
}

func bugNames(bugs []*Failure) []string {
	var out []string
	for _, b := range bugs {
		out = append(out, b.Bug+": "+b.Plan.Compact())
	}
	return out
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
	b.see(f, sightingWhy{shared: []shrink.Ingredient{shrink.Ingredients[2]}})
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
	b.see(g, sightingWhy{shared: []shrink.Ingredient{shrink.Ingredients[2]}})
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
	if !holds(cut, again, tickets, []bugid.ID{tickets, outbox}) {
		t.Errorf("the duplicate ticket after a restart is not the cut outbox duplicate's plan seen again")
	}
	if holds(cut, again, tickets, []bugid.ID{tickets}) {
		t.Errorf("a failure that does not fire the bug's own check was taken for it")
	}
	crashed := a1
	crashed.Fault = model.FaultCrash
	partial := bugid.ID{Check: checks.MissingEffect, Transition: bugid.InSequence, Rows: "IDEM-002 partial"}
	stuck := bugid.ID{Check: checks.StuckAction, Transition: bugid.AfterRestart}
	b := &Failure{Check: checks.MissingEffect, Plan: model.Plan{Steps: []model.Step{callOf(crashed), restart}}, id: partial}
	f := &Failure{Check: checks.StuckAction, Plan: model.Plan{Steps: []model.Step{callOf(crashed), restart, callOf(a1)}}, id: stuck}
	if holds(b, f, stuck, []bugid.ID{stuck, partial}) {
		t.Errorf("a stuck key whose minimal plan holds the partial effect's and does more was taken for it")
	}
	f.NotMinimal = true
	if !holds(b, f, stuck, []bugid.ID{stuck, partial}) {
		t.Errorf("a cut plan that holds the partial effect's and fires it is not that bug seen again")
	}
	// non-atomic: the retry answered ok words the missing outbox row
	// otherwise; a cut plan holding the partial effect's is still it.
	b.id.Rows = "IDEM-002 missing effect: a partial effect: an action has rows in tickets but fewer than 1 row(s) in notification_outbox"
	answered := bugid.ID{Check: checks.MissingEffect, Transition: bugid.AfterRestart, Rows: "IDEM-002 missing effect: an action answered ok has fewer than 1 row(s) in notification_outbox"}
	f.Check, f.id = checks.MissingEffect, answered
	if !holds(b, f, answered, []bugid.ID{answered}) {
		t.Errorf("a cut plan holding the partial effect's plan and firing IDEM-002 is not that bug")
	}
	f.NotMinimal = false
	if !holds(b, f, answered, []bugid.ID{answered}) {
		t.Errorf("the missing outbox row after an answered retry is not the partial effect's")
	}
	other := answered
	other.Rows = "IDEM-002 missing effect: an action answered ok has fewer than 1 row(s) in tickets"
	if holds(b, f, other, []bugid.ID{other}) {
		t.Errorf("a missing ticket was taken for a missing outbox row")
	}
	// Two cut plans say too little to be one bug.
	f.NotMinimal, b.NotMinimal = true, true
	if holds(b, f, answered, []bugid.ID{answered}) {
		t.Errorf("a cut plan was taken for another cut plan's bug")
	}
	// A duplicate in a burst is not the duplicate of a retry in sequence.
	retry := &Failure{Check: checks.DuplicateEffect, Plan: model.Plan{Steps: []model.Step{callOf(a1), callOf(a1)}}, id: outbox}
	race := &Failure{Check: checks.DuplicateEffect, Plan: model.Plan{Steps: []model.Step{burstOf(a1, a1)}}}
	if holds(retry, race, tickets, []bugid.ID{tickets, outbox}) {
		t.Errorf("a burst's duplicate was taken for a retry's in sequence")
	}
}
