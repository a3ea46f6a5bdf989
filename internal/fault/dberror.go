package fault

import (
	"context"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/model"
)

// DBError fails the call's database work once, as a passing database
// error would, and the service answers as it answers one; what the call's
// retries must get is the contract's errors: policy (checks.ErrorReplay).
// Where the database proxy stands (CallEnv.DBCall) the call's own session
// is answered at its write to the last effect table with a real
// PostgreSQL error (errorAtStatement). Elsewhere, the fallback: the call
// is sent with the last effect table write-locked and, once it waits on
// that lock, its database session is ended (dbstall.Stall.Fail).
func DBError(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	if tied := env.DBCall(); tied != nil {
		return errorAtStatement(ctx, env, tied, call)
	}
	if code := DBErrorCode(call); code != "57P01" {
		// Ending a session is the only failure a table lock can deal.
		return CallOutcome{}, needs(call.Fault+model.Fault(" "+code), "idemstress's PostgreSQL proxy between the service and its database (process:, or --db-proxy)")
	}
	effects := env.EffectStall()
	if effects == nil {
		return CallOutcome{}, needs(call.Fault, "an effect table to wait on")
	}
	var op model.Op
	var callErr error
	rep, err := effects.Fail(ctx, func(ctx context.Context, answered *atomic.Int64) {
		op, callErr = env.Send(ctx, call, 0, nil)
		if callErr == nil && op.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	})
	out := CallOutcome{Ops: []model.Op{op}}
	if err != nil {
		// A role that may not end the service's sessions is told so by err.
		return out, infrastructure(ctx, call.Fault, err)
	}
	out.Fired, out.Held = rep.Fired, rep.Blocked
	if !rep.Fired {
		out.Note = unfired(op, effects.Table, "failed")
	}
	return out, callErr
}
