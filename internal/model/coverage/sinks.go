package coverage

import (
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// The transitions of a contract's sinks (Exercised counts them). They are
// counted only under a contract that declares sinks, where every one is
// named, so the coverage of a contract without sinks has none of them.
const (
	// Delivered: a delivery a sink received.
	Delivered Transition = "delivered"
	// SinkRefused: a delivery the sink refused (a fault of the sink's),
	// which the service had to send again.
	SinkRefused Transition = "sink-refused"
	// DeliveredCalledAgain: a delivery of an action called more than once
	// (a retry the service may announce again).
	DeliveredCalledAgain Transition = "delivered-called-again"
	// Redelivered: a delivery to an at-least-once sink of an action an
	// earlier delivery of which the sink refused: a retried event, which
	// must keep its event ID. Only an at-least-once sink tells a retried
	// event from a new one.
	Redelivered Transition = "redelivered"
	// AwaitedEvent: a call answered ok under a contract with a sink: the
	// action committed, and its event must come within delivery_within.
	AwaitedEvent Transition = "awaited-event"
)

// SinkTransitions are the transitions of sinks, in the order reports show
// them: after the call transitions, before the faults.
var SinkTransitions = []Transition{Delivered, SinkRefused, DeliveredCalledAgain, Redelivered, AwaitedEvent}

// sinkExercised counts the sink transitions of one execution into cov;
// actions are the action of each call of the history.
func sinkExercised(in Exercise, actions []model.Action, cov Coverage) {
	if len(in.Sinks) == 0 {
		return
	}
	for _, t := range SinkTransitions {
		cov[t] = 0
	}
	calls := map[model.Action]int{}
	for i, op := range in.History.Ops {
		if op.Call.NoKey || !answered(op) {
			continue
		}
		calls[actions[i]]++
		if op.Out.Kind == model.OK {
			cov[AwaitedEvent]++
		}
	}
	for _, s := range in.Sinks {
		refused := map[model.Action]bool{}
		for _, d := range in.History.Deliveries {
			if d.Sink != s.Name {
				continue
			}
			cov[Delivered]++
			if !d.Accepted {
				cov[SinkRefused]++
			}
			a, ok := effect.DeliveryOf(in.Contract, in.NS, s, d.Body)
			if !ok {
				continue
			}
			if calls[a] > 1 {
				cov[DeliveredCalledAgain]++
			}
			if refused[a] && s.Mode() == effect.AtLeastOnce {
				cov[Redelivered]++
			}
			refused[a] = refused[a] || !d.Accepted
		}
	}
}
