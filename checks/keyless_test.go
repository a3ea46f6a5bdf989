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

// keylessContract is key_required: false: a call without the key is an
// ordinary create.
func keylessContract() model.Contract {
	c := model.DefaultContract()
	c.KeylessCreates = true
	return c
}

// keylessCreated is the complete effect of one keyless create: its ticket
// and its outbox row, their key columns NULL.
func (w world) keylessCreated(tenant, id string, variant int) []put {
	return []put{
		{"tickets", model.Row{Tenant: w.ns.Tenant(tenant), KeyNull: true, ID: id, Fields: map[string]string{"subject": subject(variant)}}},
		{"notification_outbox", model.Row{Tenant: w.ns.Tenant(tenant), KeyNull: true, Ref: id}},
	}
}

// Under key_required: false every keyless call is its own action: each ok
// one wrote one complete effect set under a new ID, counted by tenant;
// those of unknown effect may have written one. Each bad history fires its
// check first, each good one nothing.
func TestKeylessCreates(t *testing.T) {
	w := plain
	nk := func(tenant string, variant int) model.Call {
		return model.Call{Tenant: tenant, NoKey: true, Variant: variant}
	}
	for _, tc := range []struct {
		name string
		h    model.History
		rows []put
		want []checks.ID // primary first; nil: silent
	}{
		{name: "two creates, two effect sets", h: history(op(0, nk(w.a, 0), ok(w.id1)), op(1, nk(w.a, 0), ok(w.id2))),
			rows: slices.Concat(w.keylessCreated(w.a, w.id1, 0), w.keylessCreated(w.a, w.id2, 0))},
		{name: "creates of two tenants beside a keyed action", h: history(op(0, nk(w.a, 0), ok(w.id1)), op(1, nk(w.b, 1), ok(w.id2)), op(2, call(w.a, w.k1, 0), ok("9"))),
			rows: slices.Concat(w.keylessCreated(w.a, w.id1, 0), w.keylessCreated(w.b, w.id2, 1), w.created(w.a, w.k1, "9", 0))},
		{name: "a burst of creates", h: history(op(0, nk(w.a, 0), ok(w.id1)), op(0, nk(w.a, 0), ok(w.id2))),
			rows: slices.Concat(w.keylessCreated(w.a, w.id1, 0), w.keylessCreated(w.a, w.id2, 0))},
		{name: "unknown: written", h: history(op(0, faulty(nk(w.a, 0)), noAnswer("timeout"))), rows: w.keylessCreated(w.a, w.id1, 0)},
		{name: "unknown: not written", h: history(op(0, faulty(nk(w.a, 0)), noAnswer("timeout")))},
		{name: "a server error that wrote nothing", h: history(op(0, nk(w.a, 0), serverError()), op(1, nk(w.a, 0), ok(w.id1))),
			rows: w.keylessCreated(w.a, w.id1, 0), want: []checks.ID{checks.WrongStatus}},

		{name: "one create wrote two effect sets", h: history(op(0, nk(w.a, 0), ok(w.id1))),
			rows: slices.Concat(w.keylessCreated(w.a, w.id1, 0), w.keylessCreated(w.a, w.id2, 0)), want: []checks.ID{checks.DuplicateEffect}},
		{name: "an unknown create wrote two", h: history(op(0, faulty(nk(w.a, 0)), noAnswer("timeout"))),
			rows: slices.Concat(w.keylessCreated(w.a, w.id1, 0), w.keylessCreated(w.a, w.id2, 0)), want: []checks.ID{checks.DuplicateEffect}},
		{name: "a create answered as a replay of another", h: history(op(0, nk(w.a, 0), ok(w.id1)), op(1, nk(w.a, 0), ok(w.id1))),
			rows: w.keylessCreated(w.a, w.id1, 0), want: []checks.ID{checks.UnstableResponse, checks.MissingEffect}},
		{name: "a create answered with a keyed action's ID", h: history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, nk(w.a, 0), ok(w.id1))),
			rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.UnstableResponse, checks.MissingEffect}},
		{name: "a create that wrote nothing", h: history(op(0, nk(w.a, 0), ok(w.id1))), want: []checks.ID{checks.MissingEffect}},
		{name: "a create without its outbox row", h: history(op(0, nk(w.a, 0), ok(w.id1))),
			rows: w.keylessCreated(w.a, w.id1, 0)[:1], want: []checks.ID{checks.MissingEffect}},
		{name: "an ID that is no row of it", h: history(op(0, nk(w.a, 0), ok(w.id2))),
			rows: w.keylessCreated(w.a, w.id1, 0), want: []checks.ID{checks.UnstableResponse}},
		{name: "a row of another payload", h: history(op(0, nk(w.a, 0), ok(w.id1))),
			rows: w.keylessCreated(w.a, w.id1, 1), want: []checks.ID{checks.FieldsDiffer}},
		{name: "a keyless row of a tenant that sent none", h: history(op(0, nk(w.a, 0), ok(w.id1))),
			rows: slices.Concat(w.keylessCreated(w.a, w.id1, 0), w.keylessCreated(w.b, w.id2, 0)), want: []checks.ID{checks.StrayWrite}},
		{name: "refused as if the key were required", h: history(op(0, nk(w.a, 0), status(400))), want: []checks.ID{checks.WrongStatus}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checks.Evaluate(checks.Input{Contract: keylessContract(), Effects: sampleEffects(), NS: w.ns, History: tc.h, Rows: snapshot(tc.rows)})
			if ids := checks.IDsOf(got); !slices.Equal(ids, tc.want) {
				t.Errorf("checks fired %v, want %v:\n%s", ids, tc.want, dump(got))
			}
		})
	}
}

// Where the key is required (the default) nothing of this applies: a
// keyless call answered ok with its rows is still refused work done.
func TestKeylessCreatesOnlyUnderKeyRequiredFalse(t *testing.T) {
	w := plain
	h := history(op(0, model.Call{Tenant: w.a, NoKey: true}, ok(w.id1)))
	got := checks.Evaluate(checks.Input{Contract: model.DefaultContract(), Effects: sampleEffects(), NS: w.ns, History: h, Rows: snapshot(w.keylessCreated(w.a, w.id1, 0))})
	if ids := checks.IDsOf(got); len(ids) == 0 || ids[0] != checks.RejectedEffect || !slices.Contains(ids, checks.WrongStatus) {
		t.Errorf("checks fired %v, want IDEM-006 first and IDEM-008:\n%s", ids, dump(got))
	}
}

// Tagged rows of keyless creates carry a tag without a key: they are
// counted by the tenant the tag names, their joined rows through them.
func TestKeylessCreatesTagged(t *testing.T) {
	ns := model.Namespace("run9-3-")
	c := keylessContract()
	c.Payload = map[string]any{"subject": "Printer offline [{{tag}}]"}
	call := model.Call{Tenant: "A", NoKey: true}
	body := payloads.RenderTagged(c.Payload, identifiers.Tag(ns, c, call), 0, 0)
	subject, _ := payloads.Pointer(body, "/subject")
	two := model.History{Ops: []model.Op{
		{Call: call, Body: body, Start: 0, End: 50, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
		{Call: call, Body: body, Start: 100, End: 150, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "8"}},
	}}
	ticket := func(id string) model.Row {
		return model.Row{ID: id, Tenant: "run9-3-A", Tag: subject, Fields: map[string]string{"subject": subject}}
	}
	for _, tc := range []struct {
		name string
		rows model.Snapshot
		want []checks.ID
	}{
		{"two creates, two effect sets", model.Snapshot{"tickets": {ticket("7"), ticket("8")}, "notification_outbox": {{Join: "7"}, {Join: "8"}}}, nil},
		{"an outbox row twice", model.Snapshot{"tickets": {ticket("7"), ticket("8")}, "notification_outbox": {{Join: "7"}, {Join: "8"}, {Join: "8"}}},
			[]checks.ID{checks.DuplicateEffect}},
		{"one ticket for both", model.Snapshot{"tickets": {ticket("7")}, "notification_outbox": {{Join: "7"}}},
			[]checks.ID{checks.MissingEffect}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := checks.Evaluate(checks.Input{Contract: c, Effects: taggedEffects(), NS: ns, History: two, Rows: tc.rows})
			if ids := checks.IDsOf(got); !slices.Equal(ids, tc.want) {
				t.Errorf("checks fired %v, want %v:\n%s", ids, tc.want, dump(got))
			}
		})
	}
}

// A table whose rows carry a key but no tenant column cannot show a
// keyless row (the namespace is in its tenant and key only): a keyless
// create that wrote its row there is not blamed for a row nobody read.
func TestKeylessCreatesUnseen(t *testing.T) {
	w := plain
	effects := []effect.Effect{{Table: "tickets", Key: "request_key", ID: "id", PerAction: 1}}
	h := history(op(0, model.Call{Tenant: w.a, NoKey: true}, ok(w.id1)))
	got := checks.Evaluate(checks.Input{Contract: keylessContract(), Effects: effects, NS: w.ns, History: h, Rows: model.Snapshot{"tickets": nil}})
	if len(got) != 0 {
		t.Errorf("checks fired %v, want none:\n%s", checks.IDsOf(got), dump(got))
	}
	effects[0].Tenant = "tenant"
	got = checks.Evaluate(checks.Input{Contract: keylessContract(), Effects: effects, NS: w.ns, History: h, Rows: model.Snapshot{"tickets": nil}})
	if ids := checks.IDsOf(got); !slices.Equal(ids, []checks.ID{checks.MissingEffect}) {
		t.Errorf("with a tenant column: checks fired %v, want IDEM-002:\n%s", ids, dump(got))
	}
}
