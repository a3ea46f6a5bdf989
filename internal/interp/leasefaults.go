package interp

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

// overran sends the call (the original) with the last effect table
// write-locked and, once it waits on that lock, keeps it waiting past the
// contract's lease; then it sends the same call again (a client's retry
// after the lease has run out, to another replica when there are two) and
// lets the lock go once the retry waits too or is answered. Both calls
// join the history: a service whose lease let the retry take over
// answers both ok, with two effect sets (IDEM-001).
func (x *execution) overran(ctx context.Context, call model.Call, ev *model.FaultEvent) ([]model.Op, error) {
	lease := x.Contract.Lease
	switch {
	case x.CrashStall == nil:
		return nil, fmt.Errorf("stress: fault %s needs an effect table to hold the original on", call.Fault)
	case lease <= 0:
		return nil, fmt.Errorf("stress: fault %s needs the contract's lease", call.Fault)
	}
	replica := 0
	if x.Service != nil && len(x.Service.Addrs()) > 1 {
		replica = 1
	}
	var first, second model.Op
	var firstErr, secondErr error
	rep, err := x.CrashStall.Overrun(ctx, overrun(lease), func(ctx context.Context, answered *atomic.Int64) {
		first, firstErr = x.call(ctx, call, 0, nil)
		if firstErr == nil && first.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	}, func(ctx context.Context, answered *atomic.Int64) {
		retry := call
		retry.Fault = model.FaultNone
		second, secondErr = x.call(ctx, retry, replica, nil)
		if secondErr == nil && second.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	})
	ops := []model.Op{first}
	if rep.Retried {
		ops = append(ops, second)
	}
	if err != nil {
		return ops, stoppedOr(ctx, fmt.Errorf("%w: slow-original: %w", ErrInfrastructure, err))
	}
	ev.Fired, ev.Held = rep.Fired, rep.Blocked
	switch {
	case !rep.Held:
		ev.Note = unfiredOverrun(first, x.CrashStall.Table)
	case !rep.Fired:
		ev.Note = fmt.Sprintf("the retry sent after the lease (%s) neither waited on %s nor behind the original, nor was answered, within the nemesis's wait", lease, x.CrashStall.Table)
	}
	return ops, cmp.Or(firstErr, secondErr)
}

// unfiredOverrun says why the original answered op was never held: a
// call the service refuses writes nothing to hold it at.
func unfiredOverrun(op model.Op, table string) string {
	if op.Out.Status >= 400 && op.Out.Status < 500 {
		return fmt.Sprintf("the service answered %d before it wrote to %s (a call it refuses writes nothing), so the original was not held past the lease and no retry was sent", op.Out.Status, table)
	}
	return "the original never waited on its write to " + table + ", so it was not held past the lease and no retry was sent"
}
