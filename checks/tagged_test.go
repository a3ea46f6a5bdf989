package checks_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// taggedEffects is the sample service's tagged layout: tickets keep no key,
// their subject carries the action tag; outbox rows belong to their ticket.
func taggedEffects() []effect.Effect {
	return []effect.Effect{
		{Table: "tickets", Tag: "subject", Tenant: "tenant", ID: "id", PerAction: 1, Fields: map[string]string{"subject": "/subject"}},
		{Table: "notification_outbox", Join: &effect.Reference{Column: "ticket_id", Table: "tickets"}, PerAction: 1},
	}
}

// TestEvaluateTagged: rows found by tag and by join are attributed to their
// actions, and each check fires on its bad twin only.
func TestEvaluateTagged(t *testing.T) {
	ns := model.Namespace("run9-1-")
	c := model.DefaultContract()
	c.Payload = map[string]any{"subject": "Printer offline [{{tag}}]"}
	a := model.Call{Tenant: "A", Key: "k1"}
	body := payloads.RenderTagged(c.Payload, identifiers.Tag(ns, c, a), 0, 0)
	subject, _ := payloads.Pointer(body, "/subject")
	created := model.History{Ops: []model.Op{
		{Call: a, Body: body, Start: 0, End: 50, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
		{Call: a, Body: body, Start: 100, End: 150, Out: model.Outcome{Kind: model.OK, Status: 200, ID: "7"}},
	}}
	ticket := func(id, tenant, subject string) model.Row {
		return model.Row{ID: id, Tenant: tenant, Tag: subject, Fields: map[string]string{"subject": subject}}
	}
	good := model.Snapshot{
		"tickets":             {ticket("7", "run9-1-A", subject)},
		"notification_outbox": {{Join: "7"}},
	}
	for _, tc := range []struct {
		name  string
		check checks.ID
		rows  model.Snapshot
	}{
		{"a second outbox row for the retry", checks.DuplicateEffect, model.Snapshot{
			"tickets": good["tickets"], "notification_outbox": {{Join: "7"}, {Join: "7"}}}},
		{"no outbox row", checks.MissingEffect, model.Snapshot{"tickets": good["tickets"], "notification_outbox": nil}},
		{"the ticket written under another tenant", checks.TenantLeak, model.Snapshot{
			"tickets": {ticket("7", "run9-1-B", subject)}, "notification_outbox": {{Join: "7"}}}},
		{"a ticket whose tag is mangled", checks.StrayWrite, model.Snapshot{
			"tickets":             {good["tickets"][0], ticket("8", "run9-1-A", "Printer offline [run9-1-A.k1]")},
			"notification_outbox": {{Join: "7"}}}},
		{"an outbox row pointing at a foreign ticket", checks.BrokenReference, model.Snapshot{
			"tickets": good["tickets"], "notification_outbox": {{Join: "7"}, {Join: "99"}}}},
		{"a ticket of an action never called", checks.StrayWrite, model.Snapshot{
			"tickets":             {good["tickets"][0], ticket("8", "run9-1-B", "x [run9-1-B.k2.v0]")},
			"notification_outbox": {{Join: "7"}, {Join: "8"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := checks.Evaluate(checks.Input{Contract: c, Effects: taggedEffects(), NS: ns, History: created, Rows: tc.rows})
			if len(vs) == 0 || vs[0].Check != tc.check {
				t.Fatalf("want %s first, got %v", tc.check, vs)
			}
		})
	}
	if vs := checks.Evaluate(checks.Input{Contract: c, Effects: taggedEffects(), NS: ns, History: created, Rows: good}); len(vs) != 0 {
		t.Fatalf("correct rows flagged: %v", vs)
	}
}

// A keyless call that the service wrongly accepted, in a layout whose
// outbox rows are attributed through their ticket: its outbox row points at
// its own (keyless) ticket, which exists. That is an effect of a rejected
// call and a wrong answer, not a broken reference.
func TestEvaluateTaggedKeyless(t *testing.T) {
	ns := model.Namespace("run9-2-")
	c := model.DefaultContract()
	c.Payload = map[string]any{"subject": "Printer offline [{{tag}}]"}
	call := model.Call{Tenant: "A", NoKey: true}
	body := payloads.RenderTagged(c.Payload, identifiers.Tag(ns, c, call), 0, 0)
	subject, _ := payloads.Pointer(body, "/subject")
	h := model.History{Ops: []model.Op{{Call: call, Body: body, Start: 0, End: 50, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}}}}
	rows := model.Snapshot{
		"tickets":             {{ID: "7", Tenant: "run9-2-A", Tag: subject, Fields: map[string]string{"subject": subject}}},
		"notification_outbox": {{Join: "7"}},
	}
	vs := checks.Evaluate(checks.Input{Contract: c, Effects: taggedEffects(), NS: ns, History: h, Rows: rows})
	got := checks.IDsOf(vs)
	if want := []checks.ID{checks.RejectedEffect, checks.WrongStatus}; !slices.Equal(got, want) {
		t.Fatalf("checks %v, want %v:\n%v", got, want, vs)
	}
	// A joined row that points at no ticket at all is still a broken reference.
	rows["notification_outbox"] = []model.Row{{Join: "7"}, {Join: "99"}}
	vs = checks.Evaluate(checks.Input{Contract: c, Effects: taggedEffects(), NS: ns, History: h, Rows: rows})
	if !slices.Contains(checks.IDsOf(vs), checks.BrokenReference) {
		t.Fatalf("a dangling outbox row went unreported: %v", vs)
	}
}
