package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
)

// What a plan's faults leave behind them and the service does on its own:
// the liveness polling of an action a crash cut off, and the replicas that
// exit on their own, each started again.

// Liveness polling: how often a retry stuck in_flight after a crash is
// sent again, from first to last.
const (
	pollFirst = 20 * time.Millisecond
	pollMax   = 500 * time.Millisecond
)

// Poll sends a retry answered in_flight again, with backoff, while the
// action it retries was cut off by a crash within the contract's recovery
// time: a correct service releases the key by then. Each answer joins the
// history (resend records it); a last in_flight past the recovery time is
// what IDEM-012 reports, with every answer seen.
func (p *planFaults) Poll(ctx context.Context, call model.Call, op model.Op, resend func(context.Context) (model.Op, error)) error {
	c := p.s.Contract()
	since, ok := p.cutOff[c.ActionOf(call)]
	recovery := int64(c.Recovery)
	if !ok || recovery <= 0 || call.NoKey {
		return nil
	}
	for wait := pollFirst; op.Out.Kind == model.InFlight && op.Start-since <= recovery; wait = min(2*wait, pollMax) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		var err error
		if op, err = resend(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Exit waits up to wait for a replica that exited on its own (an
// unhandled error when a fault ended its database session, a panic) and
// starts it again: a finding about the service, not a failure of the run.
func (p *planFaults) Exit(ctx context.Context, wait time.Duration) (process.Exit, bool, error) {
	if p.Service == nil {
		return process.Exit{}, false, nil
	}
	e, ok := p.Service.ExitWithin(ctx, wait)
	if !ok {
		return e, false, nil
	}
	if err := p.Service.Revive(ctx, e.Replica); err != nil {
		return e, true, stoppedOr(ctx, fmt.Errorf("%w: starting again replica %d, which exited on its own: %w", fault.ErrInfrastructure, e.Replica, err))
	}
	p.s.Restarted()
	return e, true, nil
}

// reviveStray starts again, with no event, a replica that exited on its
// own between two plans: no plan's step preceded it.
func (p *planFaults) reviveStray(ctx context.Context) error {
	for {
		e, ok := p.Service.ExitWithin(ctx, 0)
		if !ok {
			return nil
		}
		if err := p.Service.Revive(ctx, e.Replica); err != nil {
			return stoppedOr(ctx, fmt.Errorf("%w: before the plan: starting again replica %d, which exited on its own: %w", fault.ErrInfrastructure, e.Replica, err))
		}
		p.s.Restarted()
	}
}
