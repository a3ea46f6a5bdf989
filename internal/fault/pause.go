package fault

import (
	"cmp"
	"context"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// pauseHold bounds how long a paused replica stays stopped while the
// retry sent to another replica waits for its answer.
const pauseHold = 500 * time.Millisecond

// pause sends the call to replica 0 with the last effect table
// write-locked. Once the call waits on that lock, replica 0 is SIGSTOPped
// with its transaction open, and the same call is sent again to replica
// 1: a client's retry to another replica. Once the retry is answered, or
// pauseHold passes (it may wait on what the paused request holds),
// replica 0 is SIGCONTed and the lock released; both calls finish, and
// both join the history.
func pause(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	effects, replicas := env.EffectStall(), env.Replicas()
	if replicas == nil || effects == nil || len(replicas.Addrs()) < 2 {
		return CallOutcome{}, needs(call.Fault, "two replicas of a service that idemstress starts")
	}
	return pausedAt(ctx, env, call, effects.Table, func(send func(context.Context, *atomic.Int64), whileHeld func()) (StallReport, error) {
		return effects.Hold(ctx, 1, send, whileHeld)
	})
}

// pauseKeyRecord is pause at the call's write to the service's own key
// record after its write to the last effect table (where crashKeyRecord
// kills the replica): the retry to replica 1 arrives while the
// original's effects are committed and its key record is not complete,
// where the service completes it in a transaction of its own.
func pauseKeyRecord(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	effects, keys, replicas := env.EffectStall(), env.KeyStall(), env.Replicas()
	switch {
	case replicas == nil || effects == nil || len(replicas.Addrs()) < 2:
		return CallOutcome{}, needs(call.Fault, "two replicas of a service that idemstress starts")
	case keys == nil:
		return CallOutcome{}, needs(call.Fault, "key_table")
	}
	return pausedAt(ctx, env, call, keys.Table+" after "+effects.Table, func(send func(context.Context, *atomic.Int64), whileHeld func()) (StallReport, error) {
		return effects.HoldAfter(ctx, *keys, send, whileHeld)
	})
}

// pausedAt sends the call to replica 0 under hold, which runs its
// whileHeld once the call waits on the write to where; there replica 0 is
// paused while the retry goes to replica 1.
func pausedAt(ctx context.Context, env CallEnv, call model.Call, where string, hold func(send func(context.Context, *atomic.Int64), whileHeld func()) (StallReport, error)) (CallOutcome, error) {
	replicas := env.Replicas()
	var first, second model.Op
	var firstErr, secondErr, pauseErr, resumeErr error
	var retried chan struct{}
	rep, err := hold(func(ctx context.Context, answered *atomic.Int64) {
		first, firstErr = env.Send(ctx, call, 0, nil)
		if firstErr == nil {
			answered.Add(1)
		}
	}, func() {
		if pauseErr = replicas.Pause(0); pauseErr != nil {
			return
		}
		retried = make(chan struct{})
		go func() {
			defer close(retried)
			retry := call
			retry.Fault = model.FaultNone
			second, secondErr = env.Send(ctx, retry, 1, nil)
		}()
		select {
		case <-retried:
		case <-time.After(pauseHold):
		}
		resumeErr = replicas.Resume(0)
	})
	out := CallOutcome{Ops: []model.Op{first}}
	if retried != nil {
		<-retried
		out.Ops = append(out.Ops, second)
	}
	if err = cmp.Or(err, pauseErr, resumeErr); err != nil {
		return out, infrastructure(ctx, call.Fault, err)
	}
	out.Fired, out.Held = rep.Fired, rep.Blocked
	if !rep.Fired {
		out.Note = unfired(first, where, "paused")
	}
	return out, cmp.Or(firstErr, secondErr)
}
