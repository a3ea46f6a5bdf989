package engine

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
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
		i := slices.IndexFunc(b.Sightings, func(s findings.Sighting) bool { return s.Check == checks.ChangedAccepted })
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
		if len(r.bugs) != 2 || !slices.ContainsFunc(r.bugs, func(b *findings.Failure) bool { return b.Check == checks.DuplicateEffect }) ||
			!slices.ContainsFunc(r.bugs, func(b *findings.Failure) bool { return b.Check == checks.ChangedAccepted }) {
			t.Fatalf("rows %q (notes %q), want the outbox's IDEM-001 and the IDEM-004, each its own", got, r.notes)
		}
	})
}
