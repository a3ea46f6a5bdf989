package interp

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/model"
)

// failed sends the call with the last effect table write-locked and, once
// the call waits on that lock, ends its database session (the db-error
// fault): the service's database work fails once, as a passing database
// error would make it, and the service answers as it answers one. The
// call's answer joins the history; what its retries must get is the
// contract's errors: policy (checks.ErrorReplay).
func (x *execution) failed(ctx context.Context, call model.Call, ev *model.FaultEvent) (model.Op, error) {
	if x.CrashStall == nil {
		return model.Op{}, fmt.Errorf("stress: fault %s needs an effect table to wait on", call.Fault)
	}
	var op model.Op
	var callErr error
	rep, err := x.CrashStall.Fail(ctx, func(ctx context.Context, answered *atomic.Int64) {
		op, callErr = x.call(ctx, call, 0, nil)
		if callErr == nil && op.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	})
	if err != nil {
		// A role that may not end the service's sessions is told so by err.
		return op, stoppedOr(ctx, fmt.Errorf("%w: db-error: %w", ErrInfrastructure, err))
	}
	ev.Fired, ev.Held = rep.Fired, rep.Blocked
	if !rep.Fired {
		ev.Note = unfiredCrash(op, x.CrashStall.Table, "failed")
	}
	return op, callErr
}
