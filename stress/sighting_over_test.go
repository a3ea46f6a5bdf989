package stress

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// memoryKeys: the keys live in process memory, so a restart forgets them.
// A call of an action created before the last restart writes another
// ticket and another outbox row, answered with another ID (IDEM-003), or
// a changed payload answered ok (IDEM-004); before a restart the key is known and a changed payload refused.
func memoryKeys(c model.Contract, plan model.Plan) []checks.Violation {
	first, known := map[model.Action]int{}, map[model.Action]bool{}
	var vs []checks.Violation
	for _, st := range plan.Steps {
		if st.Kind == model.StepRestart {
			clear(known)
		}
		if st.Kind != model.StepCall {
			continue
		}
		for _, call := range st.Calls {
			a := c.ActionOf(call)
			v, created := first[a]
			switch {
			case call.NoKey || known[a]:
			case !created:
				first[a] = call.Variant
			default:
				vs = append(vs, checks.Violation{Check: checks.DuplicateEffect, Message: ticketDup, Action: a},
					checks.Violation{Check: checks.DuplicateEffect, Message: outboxDup, Action: a})
				if v != call.Variant {
					vs = append(vs, checks.Violation{Check: checks.ChangedAccepted, Message: changed, Action: a})
				} else {
					vs = append(vs, checks.Violation{Check: checks.UnstableResponse, Message: "IDEM-003 unstable response", Action: a})
				}
			}
			known[a] = true
		}
	}
	return vs
}

// afterARestart is a mistake of rule's that shows only when the action's
// later call follows a restart: rule judges the plan with the action's
// calls before the last restart and the first after it.
func afterARestart(rule func(first, later model.Call) []checks.Violation) rule {
	return func(c model.Contract, plan model.Plan) []checks.Violation {
		first, restarted := map[model.Action]model.Call{}, map[model.Action]bool{}
		var vs []checks.Violation
		for _, st := range plan.Steps {
			if st.Kind == model.StepRestart {
				for a := range first {
					restarted[a] = true
				}
			}
			if st.Kind != model.StepCall {
				continue
			}
			for _, call := range st.Calls {
				a := c.ActionOf(call)
				f, ok := first[a]
				switch {
				case call.NoKey:
				case !ok:
					first[a] = call
				case restarted[a]:
					vs = append(vs, rule(f, call)...)
				}
			}
		}
		return vs
	}
}

// Issue 26.7: the forgotten key's changed payload (A/k1 v0; restart; A/k1
// v1) is the duplicate after a restart seen again, one row; two mistakes
// about one restart, each showing what the other's plan does not, stay
// two rows.
func TestEngineSightingOverARestart(t *testing.T) {
	cfg := engineConfig(300)
	cfg.World.Restart = true
	t.Run("keys kept in memory", func(t *testing.T) {
		r := runEngine(t, cfg, &scripted{rules: []rule{memoryKeys}}, 1)
		if len(r.bugs) != 1 || r.bugs[0].Check != checks.DuplicateEffect {
			t.Fatalf("rows %q (notes %q), want the duplicate after a restart alone", bugNames(r.bugs), r.notes)
		}
		b := r.bugs[0]
		want := planOf(seqOf(a1), one(restartStep), seqOf(a1)).String()
		if b.Plan.String() != want {
			t.Errorf("the row's plan is %s, want %s", b.Plan.Compact(), want)
		}
		i := slices.IndexFunc(b.Sightings, func(s Sighting) bool { return s.Check == checks.ChangedAccepted })
		if i < 0 {
			t.Fatalf("no IDEM-004 sighting under the row: %+v (notes %q)", b.Sightings, r.notes)
		}
		if s := b.Sightings[i]; !slices.Equal(s.Shared, []string{"restart"}) || s.Plan.NumCalls() != 2 {
			t.Errorf("sighting %s with %s shares %q; want two calls over the restart", s.Bug, s.Plan.Compact(), s.Shared)
		}
	})
	t.Run("an outbox row for a retry and a changed payload replayed, after a restart", func(t *testing.T) {
		outbox := afterARestart(func(first, later model.Call) []checks.Violation {
			if first.Variant != later.Variant {
				return nil
			}
			return []checks.Violation{{Check: checks.DuplicateEffect, Message: outboxDup, Action: model.Action{Tenant: later.Tenant, Key: later.Key}}}
		})
		replayed := afterARestart(func(first, later model.Call) []checks.Violation {
			if first.Variant == later.Variant {
				return nil
			}
			return []checks.Violation{{Check: checks.ChangedAccepted, Message: changed, Action: model.Action{Tenant: later.Tenant, Key: later.Key}}}
		})
		r := runEngine(t, cfg, &scripted{rules: []rule{outbox, replayed}}, 1)
		got := bugNames(r.bugs)
		if len(r.bugs) != 2 || !slices.ContainsFunc(r.bugs, func(b *Failure) bool { return b.Check == checks.DuplicateEffect }) ||
			!slices.ContainsFunc(r.bugs, func(b *Failure) bool { return b.Check == checks.ChangedAccepted }) {
			t.Fatalf("rows %q (notes %q), want the outbox's IDEM-001 and the IDEM-004, each its own", got, r.notes)
		}
	})
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
		over, ok := overOneMistake(tc.b, tc.f, tc.bFired, tc.fFired)
		if got := shrink.Names(over); ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: over %q (%v), want %q", tc.name, got, ok, tc.want)
		}
	}
}
