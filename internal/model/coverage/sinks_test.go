package coverage_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/effect"
)

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
	if got := coverage.Exercised(coverage.Exercise{Contract: c, History: h, NS: ns}); !maps.Equal(got, coverage.Coverage{coverage.Called: 2, coverage.SequentialRetry: 1}) {
		t.Errorf("no sinks: %v", got)
	}
	exactly := effect.Sink{Name: "hooks", Key: "/key", Tenant: "/tenant"}
	atLeast := exactly
	atLeast.Delivery, atLeast.EventID = effect.AtLeastOnce, "/id"
	for _, tc := range []struct {
		name  string
		sink  effect.Sink
		h     model.History
		retry int
	}{
		{"exactly-once", exactly, h, 0},
		{"at-least-once", atLeast, h, 1},
	} {
		want := coverage.Coverage{coverage.Called: 2, coverage.SequentialRetry: 1, coverage.Delivered: 3, coverage.SinkRefused: 1,
			coverage.DeliveredCalledAgain: 2, coverage.Redelivered: tc.retry, coverage.AwaitedEvent: 2}
		if got := coverage.Exercised(coverage.Exercise{Contract: c, History: tc.h, NS: ns, Sinks: []effect.Sink{tc.sink}}); !maps.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
	}
	// A sink that received nothing still names its transitions, at zero.
	quiet := model.Calls(first)
	quiet.Ops[0].Out = model.Outcome{Kind: model.Conflict, Status: 409}
	want := coverage.Coverage{coverage.Called: 1, coverage.Delivered: 0, coverage.SinkRefused: 0, coverage.DeliveredCalledAgain: 0, coverage.Redelivered: 0, coverage.AwaitedEvent: 0}
	if got := coverage.Exercised(coverage.Exercise{Contract: c, History: quiet, NS: ns, Sinks: []effect.Sink{atLeast}}); !maps.Equal(got, want) {
		t.Errorf("nothing delivered: %v, want %v", got, want)
	}
	if got := want.Transitions(); !slices.Equal(got[len(coverage.CallTransitions):], coverage.SinkTransitions) {
		t.Errorf("order: %v", got)
	}
}
