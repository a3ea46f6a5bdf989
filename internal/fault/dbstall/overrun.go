package dbstall

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
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
