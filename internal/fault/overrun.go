package fault

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model"
)

// OverrunReport says what the slow-original nemesis did.
type OverrunReport struct {
	// StallReport.Fired: the original was held past the hold and its
	// retry arrived (was seen waiting, or was answered) while it was.
	// Blocked counts the requests seen waiting when the lock was let go.
	StallReport
	// Held: the original was seen waiting on the lock; without it the
	// retry was never sent.
	Held bool
	// Retried: the retry was sent.
	Retried bool
}

// Overrun is the slow-original nemesis: Hold for one request (the
// original), kept waiting on the table's lock for hold after it is first
// seen there, as an original slowed past its service's in-progress lease
// would be. Then retry is called in a goroutine (it sends a retry of the
// same action and increments answered once it is answered), and the lock
// is kept until the retry is seen waiting too (on the table, or behind
// the original's locks) or answered, at most Wait. Then the lock is
// released and both go on. Overrun returns once both have returned.
//
// A service whose lease let the retry take over executes the action a
// second time: two effect sets. A correct one makes the retry wait behind
// the original, answers it in flight, or refuses to commit the original
// it no longer holds the key for.
func (s Stall) Overrun(ctx context.Context, hold time.Duration, original, retry func(ctx context.Context, answered *atomic.Int64)) (OverrunReport, error) {
	wait := cmpOr(s.Wait, DefaultStallWait)
	var rep OverrunReport
	// The retry is waited for last, once the lock is gone: no goroutine
	// outlives Overrun, and none waits on a lock nobody will release.
	var done chan *panicked
	defer func() {
		if done == nil {
			return
		}
		if p := <-done; p != nil {
			panic(p.value)
		}
	}()
	stall, err := s.hold(ctx, 1, original, func(ctx context.Context, tx pgx.Tx) error {
		rep.Held = true
		select {
		case <-ctx.Done():
			return fmt.Errorf("fault: slow-original on table %s: %w", s.Table, context.Cause(ctx))
		case <-time.After(hold):
		}
		var answered atomic.Int64
		rep.Retried = true
		done = goReporting(ctx, &answered, retry)
		// The original still waits; the retry is the second of two.
		arrived, _, err := s.poll(ctx, tx, 2, wait, &answered, nil)
		rep.Fired, rep.Blocked = arrived.Fired, arrived.Blocked
		return err
	})
	rep.Released = stall.Released
	if !stall.Fired {
		rep.Fired = false
		if !rep.Held {
			rep.Blocked = stall.Blocked
		}
	}
	return rep, err
}

// overrun is how much longer than the contract's lease the slow-original
// fault holds the original before its retry is sent: a service that
// stamps its claim with the database's now() (the start of the claiming
// transaction) or its own clock has let it expire by then.
func overrun(lease time.Duration) time.Duration {
	return lease + max(lease/10, 20*time.Millisecond)
}

// slowOriginal sends the call (the original) with the last effect table
// write-locked and, once it waits on that lock, keeps it waiting past the
// contract's lease (Overrun); then it sends the same call again (a
// client's retry after the lease has run out, to another replica when
// there are two) and lets the lock go once the retry waits too or is
// answered. Both calls join the history: a service whose lease let the
// retry take over answers both ok, with two effect sets (IDEM-001).
func slowOriginal(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
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
