package fault

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/model"
)

// The crashes that land inside the service's work on a call: crash (at
// its write to the last effect table, between the action's earlier writes
// and that one) and crash-key-record (at its write to the service's own
// key record after that one). The replica stays down until a restart step
// (the generator plans one).

// Crash is crash: the replica is killed at the call's write to the last
// effect table.
func Crash(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	at, err := atEffects(env, call)
	if err != nil || env.Replicas() == nil {
		return CallOutcome{}, cmp.Or(err, needs(call.Fault, "a service that idemstress starts"))
	}
	return killedAt(ctx, env, call, at)
}

// CrashKeyRecord is crash-key-record: the replica is killed at the
// call's write to the key record after its effects.
func CrashKeyRecord(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	at, err := atKeyRecord(env, call)
	if err != nil || env.Replicas() == nil {
		return CallOutcome{}, cmp.Or(err, needs(call.Fault, "a service that idemstress starts"))
	}
	return killedAt(ctx, env, call, at)
}

// A landing is a write of the call's where a crash or pause lands: what
// it is called in notes, and the hold that sends the call and runs
// whileHeld once the call waits on that write.
type landing struct {
	where string
	hold  func(ctx context.Context, send func(context.Context, *atomic.Int64), whileHeld func()) (dbstall.StallReport, error)
}

// atEffects lands at the call's write to the last effect table.
func atEffects(env CallEnv, call model.Call) (landing, error) {
	effects := env.EffectStall()
	if effects == nil {
		return landing{}, needs(call.Fault, "an effect table (not a query) whose write it interrupts")
	}
	return landing{effects.Table, func(ctx context.Context, send func(context.Context, *atomic.Int64), whileHeld func()) (dbstall.StallReport, error) {
		return effects.Hold(ctx, 1, send, whileHeld)
	}}, nil
}

// atKeyRecord lands at the call's write to the service's own key record
// after its write to the last effect table (dbstall.Stall.HoldAfter).
func atKeyRecord(env CallEnv, call model.Call) (landing, error) {
	effects, keys := env.EffectStall(), env.KeyStall()
	switch {
	case effects == nil:
		return landing{}, needs(call.Fault, "an effect table (not a query) whose write it interrupts")
	case keys == nil:
		return landing{}, needs(call.Fault, "key_table")
	}
	return landing{keys.Table + " after " + effects.Table, func(ctx context.Context, send func(context.Context, *atomic.Int64), whileHeld func()) (dbstall.StallReport, error) {
		return effects.HoldAfter(ctx, *keys, send, whileHeld)
	}}, nil
}

// killedAt sends the call to replica 0 and kills the replica once the
// call waits on the landing's write, and says what the kill did.
func killedAt(ctx context.Context, env CallEnv, call model.Call, at landing) (CallOutcome, error) {
	var op model.Op
	var callErr, killErr error
	rep, err := at.hold(ctx, func(ctx context.Context, answered *atomic.Int64) {
		op, callErr = env.Send(ctx, call, 0, nil)
		if callErr == nil && op.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	}, func() { killErr = env.Replicas().Kill(0) })
	out := CallOutcome{Ops: []model.Op{op}}
	if err = cmp.Or(err, killErr); err != nil {
		return out, infrastructure(ctx, call.Fault, err)
	}
	out.Fired, out.Held = rep.Fired, rep.Blocked
	if !rep.Fired {
		out.Note = unfired(op, at.where, "killed")
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
