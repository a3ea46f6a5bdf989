package sinks_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// An event that comes after delivery_within is late, not lost: the
// correct relay, held up by the sink's slow answers (each action's first
// attempt outlasts the relay's one-second wait, and the relay delivers
// one row at a time), sends the second action's event about two seconds
// after the first call, past a window of 1.5 s. The plan is not blamed
// with IDEM-022; a note names delivery_within.
func TestLateEventIsNoLostDelivery(t *testing.T) {
	t.Parallel()
	cfg, err := sample.WebhookConfig([]string{stresstest.SampleBinary(t)}, pgtest.NewDatabase(t, cluster), sample.WebhookRelay)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Faults = nil
	cfg.Sinks[0].Faults = []model.SinkFault{model.SinkSlow}
	cfg.Sinks[0].Slow, cfg.Sinks[0].DeliveryWithin = 2*time.Second, 1500*time.Millisecond
	s, err := stress.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}},
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k2"}}},
	}}
	tr, err := s.Try(t.Context(), "late-", plan, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range tr.Violations {
		t.Errorf("%s %s: %s", v.Check, v.Message, v.Detail)
	}
	if !slices.ContainsFunc(tr.Notes, func(n string) bool { return strings.Contains(n, "delivery_within (1.5s)") }) {
		t.Errorf("notes %q: want one naming delivery_within (1.5s)", tr.Notes)
	}
	accepted := 0
	for _, d := range tr.History.Deliveries {
		if d.Accepted {
			accepted++
		}
	}
	if accepted != 2 {
		t.Errorf("%d deliveries accepted, want both actions' events in the history: %v", accepted, tr.History.Deliveries)
	}
}
