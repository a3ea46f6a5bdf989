package bugid

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

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
		want ID
	}{
		{"sequential retry", planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))), model.History{},
			viol(checks.DuplicateEffect, "A", "k1", "in outbox"), ID{Check: checks.DuplicateEffect, Transition: InSequence, Rows: "IDEM-001 in outbox"}},
		{"burst", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.DuplicateEffect, "A", "k1", "in tickets"), ID{Check: checks.DuplicateEffect, Transition: InBurst, Rows: "IDEM-001 in tickets"}},
		{"another action's burst does not count", planOf(one(burstOf(c1("B", "k1", 0), c1("B", "k1", 0))), seqOf(c1("A", "k1", 0), c1("A", "k1", 1))), model.History{},
			viol(checks.ChangedAccepted, "A", "k1", "x"), ID{Check: checks.ChangedAccepted, Transition: InSequence}},
		{"after a restart", planOf(seqOf(c1("A", "k1", 0)), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.DuplicateEffect, "A", "k1", "m"), ID{Check: checks.DuplicateEffect, Transition: AfterRestart, Rows: "IDEM-001 m"}},
		{"after a crash of its own call", planOf(seqOf(crashed), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.StuckAction, "A", "k1", "m"), ID{Check: checks.StuckAction, Transition: AfterRestart}},
		// A stuck key is the crash's bug, whether its retry came alone or
		// in a burst; a burst with no restart before it stays a race.
		{"a stuck key retried in a burst after a crash", planOf(seqOf(crashed), one(restartStep), one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.StuckAction, "A", "k1", "m"), ID{Check: checks.StuckAction, Transition: AfterRestart}},
		{"a burst with no restart before it", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.StuckAction, "A", "k1", "m"), ID{Check: checks.StuckAction, Transition: InBurst}},
		{"a restart after the action's calls does not count", planOf(seqOf(c1("A", "k1", 0)), one(restartStep)), model.History{},
			viol(checks.MissingEffect, "A", "k1", "m"), ID{Check: checks.MissingEffect, Transition: InSequence, Rows: "IDEM-002 m"}},
		{"a 5xx", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))),
			model.History{Ops: []model.Op{{Call: c1("A", "k1", 0), Out: model.Outcome{Status: 201}}, {Call: c1("A", "k1", 0), Out: model.Outcome{Kind: model.Unknown, Status: 500}}}},
			viol(checks.WrongStatus, "A", "k1", "m"), ID{Check: checks.WrongStatus, Transition: InBurst, Status: "5xx"}},
		// A GraphQL API's 200 server error is of the class of a 5xx.
		{"a 2xx server error", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))),
			model.History{Ops: []model.Op{{Call: c1("A", "k1", 0), Out: model.Outcome{Kind: model.OK, Status: 200}}, {Call: c1("A", "k1", 0), Out: model.Outcome{Kind: model.Unknown, Status: 200}}}},
			viol(checks.WrongStatus, "A", "k1", "m"), ID{Check: checks.WrongStatus, Transition: InBurst, Status: "5xx"}},
		{"a 4xx", planOf(seqOf(c1("A", "k1", 0))),
			model.History{Ops: []model.Op{{Call: c1("A", "k1", 0), Out: model.Outcome{Status: 400}}}},
			viol(checks.WrongStatus, "A", "k1", "m"), ID{Check: checks.WrongStatus, Transition: InSequence, Status: "not 5xx"}},
		// A sink's second event is one bug however the action's second
		// call came; a phantom keeps its transition.
		{"a duplicate event in a burst", planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{},
			viol(checks.DuplicateDelivery, "A", "k1", "at sink webhooks"), ID{Check: checks.DuplicateDelivery, Transition: AnyTransition, Rows: "IDEM-020 at sink webhooks"}},
		{"a duplicate event after a restart", planOf(seqOf(c1("A", "k1", 0)), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.DuplicateDelivery, "A", "k1", "at sink webhooks"), ID{Check: checks.DuplicateDelivery, Transition: AnyTransition, Rows: "IDEM-020 at sink webhooks"}},
		{"a retry renamed in sequence", planOf(seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.EventIDChanged, "A", "k1", "at sink webhooks"), ID{Check: checks.EventIDChanged, Transition: AnyTransition, Rows: "IDEM-021 at sink webhooks"}},
		{"a phantom after a crash", planOf(seqOf(crashed), one(restartStep), seqOf(c1("A", "k1", 0))), model.History{},
			viol(checks.PhantomDelivery, "A", "k1", "at sink webhooks"), ID{Check: checks.PhantomDelivery, Transition: AfterRestart}},
		{"no action of its own: the whole plan", planOf(one(burstOf(c1("A", "k1", 0), c1("B", "k2", 0)))), model.History{},
			viol(checks.StrayWrite, "", "", "m"), ID{Check: checks.StrayWrite, Transition: InBurst, Rows: "IDEM-009 m"}},
	} {
		if got := Of(contract, tc.plan, tc.hist, tc.v); got != tc.want {
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
	burst := Of(contract, planOf(one(burstOf(c1("A", "k1", 0), c1("A", "k1", 0)))), model.History{}, v)
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
		got := Of(contract, plan, model.History{}, vv)
		if want := name != "at another sink too"; SameID(got, burst) != want {
			t.Errorf("%s: %s and %s the same bug: %v, want %v", name, got, burst, SameID(got, burst), want)
		}
	}
}
