package model_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// A delivery finds its action by its key and tenant as sent, or by the
// tag in a field, and only in its own namespace.
func TestDeliveryOf(t *testing.T) {
	c := model.DefaultContract()
	ns := model.Namespace("ns1-")
	byKey := model.Sink{Name: "hooks", Key: "/key", Tenant: "/tenant"}
	byTag := model.Sink{Name: "hooks", Tag: "/subject"}
	tag := ns.Tag(c, model.Call{Tenant: "A", Key: "k1"})
	for _, tc := range []struct {
		name string
		sink model.Sink
		body string
		want model.Action
		ok   bool
	}{
		{"key and tenant", byKey, `{"key":"ns1-k1","tenant":"ns1-A"}`, model.Action{Tenant: "A", Key: "k1"}, true},
		{"another namespace's key", byKey, `{"key":"ns2-k1","tenant":"ns2-A"}`, model.Action{}, false},
		{"no key", byKey, `{"tenant":"ns1-A"}`, model.Action{}, false},
		{"not JSON", byKey, `key=ns1-k1`, model.Action{}, false},
		{"tag in a field", byTag, `{"subject":"Printer offline [` + tag + `]"}`, model.Action{Tenant: "A", Key: "k1"}, true},
		{"no tag", byTag, `{"subject":"Printer offline"}`, model.Action{}, false},
	} {
		got, ok := c.DeliveryOf(ns, tc.sink, []byte(tc.body))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// The sinks' transitions are counted only under a contract with sinks,
// and each only where it happened: a delivery, a refused one, one of an
// action called twice, an event retried at an at-least-once sink, and an
// ok answer whose event must come.
func TestExercisedCountsDeliveries(t *testing.T) {
	c := model.DefaultContract()
	ns := model.Namespace("ns1-")
	first, again := covOp("A", "k1", p, 0, 10), covOp("A", "k1", p, 20, 30)
	h := model.Calls(first, again)
	delivery := func(key string, fault model.SinkFault, event string) model.Delivery {
		return model.Delivery{Sink: "hooks", Body: model.Body(`{"key":"ns1-` + key + `","tenant":"ns1-A","id":"` + event + `"}`), Fault: fault, Accepted: fault == model.SinkNone}
	}
	h.Deliveries = []model.Delivery{delivery("k1", model.Sink500, "e1"), delivery("k1", model.SinkNone, "e1"), delivery("k9", model.SinkNone, "e9")}
	if got := model.Exercised(model.Exercise{Contract: c, History: h, NS: ns}); !maps.Equal(got, model.Coverage{model.Called: 2, model.SequentialRetry: 1}) {
		t.Errorf("no sinks: %v", got)
	}
	exactly := model.Sink{Name: "hooks", Key: "/key", Tenant: "/tenant"}
	atLeast := exactly
	atLeast.Delivery, atLeast.EventID = model.AtLeastOnce, "/id"
	for _, tc := range []struct {
		name  string
		sink  model.Sink
		h     model.History
		retry int
	}{
		{"exactly-once", exactly, h, 0},
		{"at-least-once", atLeast, h, 1},
	} {
		want := model.Coverage{model.Called: 2, model.SequentialRetry: 1, model.Delivered: 3, model.SinkRefused: 1,
			model.DeliveredCalledAgain: 2, model.Redelivered: tc.retry, model.AwaitedEvent: 2}
		if got := model.Exercised(model.Exercise{Contract: c, History: tc.h, NS: ns, Sinks: []model.Sink{tc.sink}}); !maps.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
	}
	// A sink that received nothing still names its transitions, at zero.
	quiet := model.Calls(first)
	quiet.Ops[0].Out = model.Outcome{Kind: model.Conflict, Status: 409}
	want := model.Coverage{model.Called: 1, model.Delivered: 0, model.SinkRefused: 0, model.DeliveredCalledAgain: 0, model.Redelivered: 0, model.AwaitedEvent: 0}
	if got := model.Exercised(model.Exercise{Contract: c, History: quiet, NS: ns, Sinks: []model.Sink{atLeast}}); !maps.Equal(got, want) {
		t.Errorf("nothing delivered: %v, want %v", got, want)
	}
	if got := want.Transitions(); !slices.Equal(got[len(model.CallTransitions):], model.SinkTransitions) {
		t.Errorf("order: %v", got)
	}
}

// The defaults a sink that says nothing gets.
func TestSinkDefaults(t *testing.T) {
	s := model.Sink{Name: "hooks", Key: "/key"}
	if s.Mode() != model.ExactlyOnce || s.EventsPerAction() != 1 || s.Within() != model.DefaultDeliveryWithin || s.SlowFor() != model.DefaultSinkSlow || s.QuietFor() != model.DefaultSinkQuiet {
		t.Errorf("defaults: %s %d %s %s", s.Mode(), s.EventsPerAction(), s.Within(), s.SlowFor())
	}
	if err := model.ValidateSinks([]model.Sink{s}); err != nil {
		t.Errorf("a minimal sink: %v", err)
	}
	for _, q := range []time.Duration{-time.Millisecond, model.DefaultDeliveryWithin + time.Millisecond} {
		loud := s
		loud.Quiet = q
		if err := model.ValidateSinks([]model.Sink{loud}); err == nil || !strings.Contains(err.Error(), "quiet") {
			t.Errorf("quiet %s: %v", q, err)
		}
	}
	if s.Placeholder() != "{sink.hooks.url}" {
		t.Errorf("placeholder %q", s.Placeholder())
	}
}
