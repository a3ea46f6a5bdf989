package interp

import (
	"context"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// stalled runs a burst through the plan's faults, under the db-stall
// nemesis when the run has one, and records the nemesis's operation as
// an event beside the burst's calls.
func (x *execution) stalled(ctx context.Context, calls []model.Call) error {
	var ops []model.Op
	var burstErr error
	start := x.now()
	out, err := x.faults.Burst(ctx, len(calls), func(ctx context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64) {
		ops, burstErr = x.burst(ctx, x.ns, calls, x.t0, answered, at)
	})
	end := x.now()
	idx := x.add(ops)
	if err != nil {
		return err
	}
	if out.Kind == "" {
		return burstErr
	}
	// The nemesis operation ends when it let the burst go, not when the
	// burst is over (nemesis.BurstOutcome.Released).
	ev := model.FaultEvent{Kind: out.Kind, Step: x.step, Start: start, End: end, Ops: idx, Fired: out.Fired, Held: out.Held, Note: out.Note}
	if !out.Released.IsZero() {
		ev.End = int64(out.Released.Sub(x.t0))
	}
	x.h.Faults = append(x.h.Faults, ev)
	return burstErr
}
