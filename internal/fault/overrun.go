package fault

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// overrun is how much longer than the contract's lease the slow-original
// fault holds the original before its retry is sent: a service that
// stamps its claim with the database's now() (the start of the claiming
// transaction) or its own clock has let it expire by then.
func overrun(lease time.Duration) time.Duration {
	return lease + max(lease/10, 20*time.Millisecond)
}

// SlowOriginal sends the call (the original) with the last effect table
// write-locked and, once it waits on that lock, keeps it waiting past the
// contract's lease (dbstall.Stall.Overrun); then it sends the same call
// again (a client's retry after the lease has run out, to another
// replica when there are two) and lets the lock go once the retry waits
// too or is answered. Both calls join the history: a service whose lease let the
// retry take over answers both ok, with two effect sets (IDEM-001).
func SlowOriginal(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	effects, lease := env.EffectStall(), env.Contract().Lease
	switch {
	case effects == nil:
		return CallOutcome{}, needs(call.Fault, "an effect table to hold the original on")
	case lease <= 0:
		return CallOutcome{}, needs(call.Fault, "the contract's lease")
	}
	replica := 0
	if r := env.Replicas(); r != nil && len(r.Addrs()) > 1 {
		replica = 1
	}
	var first, second model.Op
	var firstErr, secondErr error
	rep, err := effects.Overrun(ctx, overrun(lease), func(ctx context.Context, answered *atomic.Int64) {
		first, firstErr = env.Send(ctx, call, 0, nil)
		if firstErr == nil && first.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	}, func(ctx context.Context, answered *atomic.Int64) {
		retry := call
		retry.Fault = model.FaultNone
		second, secondErr = env.Send(ctx, retry, replica, nil)
		if secondErr == nil && second.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	})
	out := CallOutcome{Ops: []model.Op{first}}
	if rep.Retried {
		out.Ops = append(out.Ops, second)
	}
	if err != nil {
		return out, infrastructure(ctx, call.Fault, err)
	}
	out.Fired, out.Held = rep.Fired, rep.Blocked
	switch {
	case !rep.Held:
		out.Note = unfiredOverrun(first, effects.Table)
	case !rep.Fired:
		out.Note = fmt.Sprintf("the retry sent after the lease (%s) neither waited on %s nor behind the original, nor was answered, within the nemesis's wait", lease, effects.Table)
	}
	return out, cmp.Or(firstErr, secondErr)
}

// unfiredOverrun says why the original answered op was never held: a
// call the service refuses writes nothing to hold it at.
func unfiredOverrun(op model.Op, table string) string {
	if op.Out.Status >= 400 && op.Out.Status < 500 {
		return fmt.Sprintf("the service answered %d before it wrote to %s (a call it refuses writes nothing), so the original was not held past the lease and no retry was sent", op.Out.Status, table)
	}
	return "the original never waited on its write to " + table + ", so it was not held past the lease and no retry was sent"
}
