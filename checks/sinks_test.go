package checks_test

import (
	"encoding/json"
	"slices"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// testSinks are the sinks a scenario's deliveries may go to: hooks takes
// each event once, events at least once by event ID and names the
// resource each announces.
var testSinks = []effect.Sink{
	{Name: "hooks", Key: "/key", Tenant: "/tenant", Fields: map[string]string{"/subject": "/subject"}},
	{Name: "events", Key: "/key", Tenant: "/tenant", ID: "/ticket_id", Delivery: effect.AtLeastOnce, EventID: "/id"},
}

// sinksOf declares the sinks a history's deliveries went to: a scenario
// without deliveries has no sink, as the contracts of the other cases.
func sinksOf(h model.History) []effect.Sink {
	var out []effect.Sink
	for _, s := range testSinks {
		if slices.ContainsFunc(h.Deliveries, func(d model.Delivery) bool { return d.Sink == s.Name }) {
			out = append(out, s)
		}
	}
	return out
}

// sent is one delivery of action tenant/key to a sink: its event ID, the
// ticket it announces, the payload variant its subject comes from, and
// what the sink did to it.
type sent struct {
	sink, tenant, key, event, ticket string
	variant                          int
	fault                            model.SinkFault
	at                               int64 // when it came; 1 when 0
}

func (w world) delivery(s sent) model.Delivery {
	body, _ := json.Marshal(map[string]string{"key": w.ns.Key(s.key), "tenant": w.ns.Tenant(s.tenant),
		"subject": subject(s.variant), "id": s.event, "ticket_id": s.ticket})
	return model.Delivery{Sink: s.sink, Method: "POST", Body: body, Fault: s.fault, Accepted: s.fault == model.SinkNone, Time: max(1, s.at)}
}

func (w world) delivered(h model.History, ss ...sent) model.History {
	for _, s := range ss {
		h.Deliveries = append(h.Deliveries, w.delivery(s))
	}
	return h
}

// sinkCases are the verdict cases of the checks of sinks.
func sinkCases() []verdictCase {
	return []verdictCase{
		{name: "webhook of a call whose commit rolled back", check: checks.PhantomDelivery, message: "never committed", primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, faulty(call(w.a, w.k1, 0)), noAnswer("EOF")))
				return scenario{w.delivered(h, sent{sink: "hooks", tenant: w.a, key: w.k1}), snapshot(either(bad, nil, w.created(w.a, w.k1, w.id1, 0)))}
			}},
		{name: "webhook announcing a ticket that was rolled back", check: checks.PhantomDelivery, message: "announcing a resource", primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, faulty(call(w.a, w.k1, 0)), noAnswer("EOF")), op(1, call(w.a, w.k1, 0), ok(w.id1)))
				h = w.delivered(h, sent{sink: "events", tenant: w.a, key: w.k1, event: "e1", ticket: either(bad, w.id2, w.id1)})
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "webhook accepted again on a replay", check: checks.DuplicateDelivery, message: "exactly-once", primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 0), ok(w.id1)))
				h = w.delivered(h, sent{sink: "hooks", tenant: w.a, key: w.k1, fault: either(bad, model.SinkNone, model.Sink500)},
					sent{sink: "hooks", tenant: w.a, key: w.k1})
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "a replay sends a new event", check: checks.DuplicateDelivery, message: "at-least-once", primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 0), ok(w.id1)))
				h = w.delivered(h, sent{sink: "events", tenant: w.a, key: w.k1, event: "e1", ticket: w.id1},
					sent{sink: "events", tenant: w.a, key: w.k1, event: either(bad, "e2", "e1"), ticket: w.id1})
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "a refused delivery retried under a new event ID", check: checks.EventIDChanged, primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)))
				h = w.delivered(h, sent{sink: "events", tenant: w.a, key: w.k1, event: "e1", ticket: w.id1, fault: model.Sink500},
					sent{sink: "events", tenant: w.a, key: w.k1, event: either(bad, "e2", "e1"), ticket: w.id1})
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "a replay's second event, both retried in turn", check: checks.DuplicateDelivery, message: "at-least-once", primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 0), ok(w.id1)))
				e2 := either(bad, "e2", "e1")
				h = w.delivered(h, sent{sink: "events", tenant: w.a, key: w.k1, event: "e1", ticket: w.id1, fault: model.Sink500},
					sent{sink: "events", tenant: w.a, key: w.k1, event: e2, ticket: w.id1, fault: model.SinkDrop},
					sent{sink: "events", tenant: w.a, key: w.k1, event: "e1", ticket: w.id1, fault: model.SinkSlow},
					sent{sink: "events", tenant: w.a, key: w.k1, event: e2, ticket: w.id1})
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "a replay's event lost with the replica that held it", check: checks.DuplicateDelivery, message: "at-least-once", primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 0), ok(w.id1)))
				h.Faults = []model.FaultEvent{{Kind: model.FaultRestart, Step: 2, Start: 5, End: 8, Fired: true}}
				h = w.delivered(h, sent{sink: "events", tenant: w.a, key: w.k1, event: "e1", ticket: w.id1, fault: model.Sink500, at: 2},
					sent{sink: "events", tenant: w.a, key: w.k1, event: either(bad, "e2", "e1"), ticket: w.id1, at: 10})
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
		{name: "a committed action's webhook never sent", check: checks.LostDelivery, primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k2, 0), ok(w.id2)))
				h = w.delivered(h, sent{sink: "hooks", tenant: w.a, key: w.k2})
				if !bad {
					h = w.delivered(h, sent{sink: "hooks", tenant: w.a, key: w.k1})
				}
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k2, w.id2, 0))}
			}},
		{name: "a webhook's field differs from the winning payload", check: checks.FieldsDiffer, message: "sink hooks", primary: true,
			build: func(w world, bad bool) scenario {
				h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)))
				h = w.delivered(h, sent{sink: "hooks", tenant: w.a, key: w.k1, variant: either(bad, 1, 0)})
				return scenario{h, snapshot(w.created(w.a, w.k1, w.id1, 0))}
			}},
	}
}
