package stress

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

func c1(tenant, key string, variant int) model.Call {
	return model.Call{Tenant: tenant, Key: key, Variant: variant}
}

func seqOf(calls ...model.Call) []model.Step {
	var steps []model.Step
	for _, c := range calls {
		steps = append(steps, model.Step{Kind: model.StepCall, Calls: []model.Call{c}})
	}
	return steps
}

func burstOf(calls ...model.Call) model.Step { return model.Step{Kind: model.StepBurst, Calls: calls} }

var restartStep = model.Step{Kind: model.StepRestart}

func planOf(steps ...[]model.Step) model.Plan {
	var p model.Plan
	for _, s := range steps {
		p.Steps = append(p.Steps, s...)
	}
	return p
}

func one(s model.Step) []model.Step { return []model.Step{s} }

func viol(id checks.ID, tenant, key, msg string) checks.Violation {
	return checks.Violation{Check: id, Message: string(id) + " " + msg, Action: model.Action{Tenant: tenant, Key: key}}
}

// A violation's identity is its check and the transition its action went
// through; a wrong status adds its status class, a check of rows its
// message (the table).
func TestBugIDOf(t *testing.T) {
	crashed := c1("A", "k1", 0)
	crashed.Fault = model.FaultCrash
	contract := model.Contract{}.WithDefaults()
	for _, tc := range []struct {
		name string
		plan model.Plan
		hist model.History
		v    checks.Violation
		want bugID
	}{
		{"sequential retry", planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))), model.History{},
			viol(checks.DuplicateEffect, "A", "k1", "in outbox"), bugID{Check: checks.DuplicateEffect, Transition: InSequence, Rows: "IDEM-001 in outbox"}},
		{"burst", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.DuplicateEffect, "A", "k1", "in tickets"), bugID{Check: checks.DuplicateEffect, Transition: inBurst, Rows: "IDEM-001 in tickets"}},
		{"another action's burst does not count", planOf(one(burstOf(c1("B", "k1", 0), c1("B", "k1", 0))), seqOf(c1("A", "k1", 0), c1("A", "k1", 1))), model.History{},
			viol(checks.ChangedAccepted, "A", "k1", "x"), bugID{Check: checks.ChangedAccepted, Transition: InSequence}},
		{"after a restart", planOf(seqOf(c1("A", "k1", 0)), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.DuplicateEffect, "A", "k1", "m"), bugID{Check: checks.DuplicateEffect, Transition: afterRestart, Rows: "IDEM-001 m"}},
		{"after a crash of its own call", planOf(seqOf(crashed), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.StuckAction, "A", "k1", "m"), bugID{Check: checks.StuckAction, Transition: afterRestart}},
		// A stuck key is the crash's bug, whether its retry came alone or
		// in a burst; a burst with no restart before it stays a race.
		{"a stuck key retried in a burst after a crash", planOf(seqOf(crashed), one(restartStep), one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.StuckAction, "A", "k1", "m"), bugID{Check: checks.StuckAction, Transition: afterRestart}},
		{"a burst with no restart before it", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.StuckAction, "A", "k1", "m"), bugID{Check: checks.StuckAction, Transition: inBurst}},
		{"a restart after the action's calls does not count", planOf(seqOf(c1("A", "k1", 0)), one(restartStep)), model.History{},
			viol(checks.MissingEffect, "A", "k1", "m"), bugID{Check: checks.MissingEffect, Transition: InSequence, Rows: "IDEM-002 m"}},
		{"a 5xx", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))),
			model.History{Ops: []model.Op{{Call: c1("A", "k1", 0), Out: model.Outcome{Status: 201}}, {Call: c1("A", "k1", 0), Out: model.Outcome{Kind: model.Unknown, Status: 500}}}},
			viol(checks.WrongStatus, "A", "k1", "m"), bugID{Check: checks.WrongStatus, Transition: inBurst, Status: "5xx"}},
		// A GraphQL API's 200 server error is of the class of a 5xx.
		{"a 2xx server error", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))),
			model.History{Ops: []model.Op{{Call: c1("A", "k1", 0), Out: model.Outcome{Kind: model.OK, Status: 200}}, {Call: c1("A", "k1", 0), Out: model.Outcome{Kind: model.Unknown, Status: 200}}}},
			viol(checks.WrongStatus, "A", "k1", "m"), bugID{Check: checks.WrongStatus, Transition: inBurst, Status: "5xx"}},
		{"a 4xx", planOf(seqOf(c1("A", "k1", 0))),
			model.History{Ops: []model.Op{{Call: c1("A", "k1", 0), Out: model.Outcome{Status: 400}}}},
			viol(checks.WrongStatus, "A", "k1", "m"), bugID{Check: checks.WrongStatus, Transition: InSequence, Status: "not 5xx"}},
		// A sink's second event is one bug however the action's second
		// call came; a phantom keeps its transition.
		{"a duplicate event in a burst", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.DuplicateDelivery, "A", "k1", "at sink webhooks"), bugID{Check: checks.DuplicateDelivery, Transition: anyTransition, Rows: "IDEM-020 at sink webhooks"}},
		{"a duplicate event after a restart", planOf(seqOf(c1("A", "k1", 0)), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.DuplicateDelivery, "A", "k1", "at sink webhooks"), bugID{Check: checks.DuplicateDelivery, Transition: anyTransition, Rows: "IDEM-020 at sink webhooks"}},
		{"a retry renamed in sequence", planOf(seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.EventIDChanged, "A", "k1", "at sink webhooks"), bugID{Check: checks.EventIDChanged, Transition: anyTransition, Rows: "IDEM-021 at sink webhooks"}},
		{"a phantom after a crash", planOf(seqOf(crashed), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.PhantomDelivery, "A", "k1", "at sink webhooks"), bugID{Check: checks.PhantomDelivery, Transition: afterRestart}},
		{"no action of its own: the whole plan", planOf(one(burstOf(c1("A", "k1", 0), c1("B", "k2", 0)))), model.History{},
			viol(checks.StrayWrite, "", "", "m"), bugID{Check: checks.StrayWrite, Transition: inBurst, Rows: "IDEM-009 m"}},
	} {
		if got := bugIDOf(contract, tc.plan, tc.hist, tc.v); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The user's webhook-on-replay was three rows of IDEM-020, seen in a
// burst, with a double-delivery and after restarts: one bug.
func TestDuplicateEventOneBugInEveryTransition(t *testing.T) {
	contract := model.Contract{}.WithDefaults()
	twice := c1("A", "k1", 0)
	twice.Fault = model.FaultDoubleDelivery
	v := viol(checks.DuplicateDelivery, "A", "k1", "at sink webhooks")
	burst := bugIDOf(contract, planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{}, v)
	for name, plan := range map[string]model.Plan{
		"in sequence":         planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))),
		"delivered twice":     planOf(seqOf(twice)),
		"after two restarts":  planOf(seqOf(c1("A", "k1", 1)), one(restartStep), seqOf(c1("A", "k1", 1)), one(restartStep), seqOf(c1("A", "k1", 2))),
		"at another sink too": planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))),
	} {
		vv := v
		if name == "at another sink too" {
			vv = viol(checks.DuplicateDelivery, "A", "k1", "at sink mail")
		}
		got := bugIDOf(contract, plan, model.History{}, vv)
		if want := name != "at another sink too"; sameID(got, burst) != want {
			t.Errorf("%s: %s and %s the same bug: %v, want %v", name, got, burst, sameID(got, burst), want)
		}
	}
}
