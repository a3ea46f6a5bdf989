package sighting

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
)

// failure is a shrunk failure of plan firing vs, answered ok throughout,
// with its identity and what it fired.
func failure(c model.Contract, plan model.Plan, vs ...checks.Violation) (*findings.Failure, bugid.ID, []bugid.ID) {
	f := &findings.Failure{Check: vs[0].Check, Plan: plan, Violations: vs}
	for i, st := range plan.Steps {
		for _, call := range st.Calls {
			f.History.Ops = append(f.History.Ops, model.Op{Call: call, Step: i, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "1"}})
		}
	}
	fired := make([]bugid.ID, len(vs))
	for i, v := range vs {
		fired[i] = bugid.Of(c, plan, f.History, v)
	}
	return f, fired[0], fired
}

func sequence(calls ...model.Call) model.Plan {
	var p model.Plan
	for _, c := range calls {
		p.Steps = append(p.Steps, model.Step{Kind: model.StepCall, Calls: []model.Call{c}})
	}
	return p
}

// A service whose cache key holds the query string: the duplicate (A/k1
// v0; A/k1 v0 +query) is reported, and a changed payload accepted through
// the same query (A/k1 v0; A/k1 v1 +query) is a sighting of it when the
// experiments say the query is what it needs; a failure that shows its
// check without the query is a bug of its own, and the bug's own plan
// seen again is the bug with no experiment at all.
func TestExperimentsFileASighting(t *testing.T) {
	c := model.DefaultContract()
	plain := model.Call{Tenant: "A", Key: "k1"}
	query := plain
	query.Noise = model.NoiseQuery
	changedQuery := query
	changedQuery.Variant = 1
	a := c.ActionOf(plain)
	dup := checks.Violation{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect", Action: a}
	changed := checks.Violation{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted", Action: a}

	bug, bugID, _ := failure(c, sequence(plain, query), dup)
	findings.SetID(bug, bugID)
	hasQuery := func(p model.Plan) bool {
		for _, st := range p.Steps {
			for _, call := range st.Calls {
				if call.Noise == model.NoiseQuery {
					return true
				}
			}
		}
		return false
	}
	for _, tc := range []struct {
		name string
		// shows is the scripted service: whether a plan shows what is looked for.
		shows      func(model.Plan) bool
		again      bool // the failure is the bug's own plan
		want       *findings.Failure
		experiment bool
	}{
		{name: "needs the shared query", shows: hasQuery, want: bug, experiment: true},
		{name: "shows without the query", shows: func(model.Plan) bool { return true }, experiment: true},
		{name: "the bug seen again", shows: hasQuery, again: true, want: bug},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, own, fired := failure(c, sequence(plain, changedQuery), changed)
			if tc.again {
				f, own, fired = failure(c, sequence(plain, query), dup)
			}
			ran := 0
			x := Experiments{Contract: c, Bugs: []*findings.Failure{bug}, ShowsIn: func(p model.Plan, _ func(bugid.ID) bool) Outcome {
				ran++
				if tc.shows(p) {
					return Shown
				}
				return NotShown
			}}
			got, why := x.Of(f, own, fired)
			if got != tc.want {
				t.Errorf("filed under %v (%+v), want %v", got, why, tc.want)
			}
			if (ran > 0) != tc.experiment {
				t.Errorf("%d experiments ran, want some: %v", ran, tc.experiment)
			}
			if tc.want != nil && tc.experiment && len(why.Shared) == 0 {
				t.Errorf("why %+v names no shared ingredient", why)
			}
		})
	}
}
