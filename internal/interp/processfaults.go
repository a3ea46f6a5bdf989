package interp

import (
	"context"
	"fmt"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// What the executor itself does to the service's processes: the restart
// step, and the liveness polling after a crash (the crashes and the pause
// of a call are package fault's).

// Liveness polling: how often a retry stuck in_flight after a crash is
// sent again, from first to last.
const (
	pollFirst = 20 * time.Millisecond
	pollMax   = 500 * time.Millisecond
)

// poll sends a retry answered in_flight again, with backoff, while the
// action it retries was cut off by a crash within the contract's recovery
// time: a correct service releases the key by then. Each answer joins the
// history; a last in_flight past the recovery time is what IDEM-012
// reports, with every answer seen.
func (x *execution) poll(ctx context.Context, call model.Call, op model.Op) error {
	since, ok := x.cutOff[x.Contract.ActionOf(call)]
	recovery := int64(x.Contract.Recovery)
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
		op, err = x.call(ctx, call, 0, nil)
		x.add([]model.Op{op})
		if err != nil {
			return err
		}
	}
	return nil
}

// restart restarts every replica gracefully (or starts one a crash left
// down) and waits until each is ready.
func (x *execution) restart(ctx context.Context) error {
	if x.Service == nil {
		return fmt.Errorf("interp: step %d: restart needs a service that idemstress starts", x.step+1)
	}
	ev := model.FaultEvent{Kind: model.FaultRestart, Step: x.step, Start: x.now()}
	for i := range x.Service.Addrs() {
		if err := x.Service.Restart(ctx, i); err != nil {
			return stoppedOr(ctx, fmt.Errorf("%w: restart: %w", ErrInfrastructure, err))
		}
	}
	x.down = false
	x.closeIdle()
	ev.End, ev.Fired = x.now(), true
	x.h.Faults = append(x.h.Faults, ev)
	return nil
}
