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

// Pause sends the call to replica 0 with the last effect table
// write-locked. Once the call waits on that lock, replica 0 is SIGSTOPped
// with its transaction open, and the same call is sent again to replica
// 1: a client's retry to another replica. Once the retry is answered, or
// pauseHold passes (it may wait on what the paused request holds),
// replica 0 is SIGCONTed and the lock released; both calls finish, and
// both join the history.
func Pause(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	return pausedAt(ctx, env, call, atEffects)
}

// PauseKeyRecord is pause at the call's write to the service's own key
// record after its write to the last effect table (where crashKeyRecord
// kills the replica): the retry to replica 1 arrives while the
// original's effects are committed and its key record is not complete,
// where the service completes it in a transaction of its own.
func PauseKeyRecord(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	return pausedAt(ctx, env, call, atKeyRecord)
}

// pausedAt sends the call to replica 0 and, once it waits on the write
// it lands at, pauses replica 0 while the retry goes to replica 1.
func pausedAt(ctx context.Context, env CallEnv, call model.Call, landAt func(CallEnv, model.Call) (landing, error)) (CallOutcome, error) {
	at, err := landAt(env, call)
	replicas := env.Replicas()
	if err != nil || replicas == nil || len(replicas.Addrs()) < 2 {
		return CallOutcome{}, cmp.Or(err, needs(call.Fault, "two replicas of a service that idemstress starts"))
	}
	var first, second model.Op
	var firstErr, secondErr, pauseErr, resumeErr error
	var retried chan struct{}
	rep, err := at.hold(ctx, func(ctx context.Context, answered *atomic.Int64) {
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
		out.Note = unfired(first, at.where, "paused")
	}
	return out, cmp.Or(firstErr, secondErr)
}
