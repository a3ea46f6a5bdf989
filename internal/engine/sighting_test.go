package engine

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
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
		i := slices.IndexFunc(b.Sightings, func(s findings.Sighting) bool { return s.Check == checks.ChangedAccepted })
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

func bugNames(bugs []*findings.Failure) []string {
	var out []string
	for _, b := range bugs {
		out = append(out, b.Bug+": "+b.Plan.Compact())
	}
	return out
}
