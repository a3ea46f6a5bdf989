package fault

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/model"
)

// The crashes that land inside the service's work on a call: crash (at
// its write to the last effect table, between the action's earlier writes
// and that one) and crash-key-record (at its write to the service's own
// key record after that one). The replica stays down until a restart step
// (the generator plans one).

func crash(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	effects := env.EffectStall()
	if env.Replicas() == nil || effects == nil {
		return CallOutcome{}, needs(call.Fault, "a service that idemstress starts")
	}
	return killedAt(ctx, env, call, effects.Table, func(send func(context.Context, *atomic.Int64), kill func()) (StallReport, error) {
		return effects.Hold(ctx, 1, send, kill)
	})
}

func crashKeyRecord(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	effects, keys := env.EffectStall(), env.KeyStall()
	switch {
	case env.Replicas() == nil || effects == nil:
		return CallOutcome{}, needs(call.Fault, "a service that idemstress starts")
	case keys == nil:
		return CallOutcome{}, needs(call.Fault, "key_table")
	}
	return killedAt(ctx, env, call, keys.Table+" after "+effects.Table, func(send func(context.Context, *atomic.Int64), kill func()) (StallReport, error) {
		return effects.HoldAfter(ctx, *keys, send, kill)
	})
}

// killedAt sends the call to replica 0 under hold, which runs kill once
// the call waits on the write to where (a table, or "keys after
// effects"), and says what the kill did.
func killedAt(ctx context.Context, env CallEnv, call model.Call, where string, hold func(send func(context.Context, *atomic.Int64), kill func()) (StallReport, error)) (CallOutcome, error) {
	var op model.Op
	var callErr, killErr error
	rep, err := hold(func(ctx context.Context, answered *atomic.Int64) {
		op, callErr = env.Send(ctx, call, 0, nil)
		if callErr == nil && op.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	}, func() { killErr = env.Replicas().Kill(0) })
	out := CallOutcome{Ops: []model.Op{op}}
	if err == nil {
		err = killErr
	}
	if err != nil {
		return out, infrastructure(ctx, call.Fault, err)
	}
	out.Fired, out.Held = rep.Fired, rep.Blocked
	if !rep.Fired {
		out.Note = unfired(op, where, "killed")
		return out, callErr
	}
	// A call cut short by the kill is an unknown outcome, not the end of
	// the run.
	out.Down, out.CutOff = true, true
	return out, nil
}

// unfired says why a crash, pause or db-error (done: "killed", "paused",
// "failed") did not fire on the call answered op: a call the service
// refuses writes nothing to interrupt.
func unfired(op model.Op, table, done string) string {
	if op.Out.Status >= 400 && op.Out.Status < 500 {
		return fmt.Sprintf("the service answered %d before it wrote to %s (a call it refuses writes nothing), so the replica was not %s", op.Out.Status, table, done)
	}
	return "the call never waited on its write to " + table + ", so the replica was not " + done
}
