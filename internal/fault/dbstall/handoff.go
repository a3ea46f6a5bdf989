package dbstall

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// HoldAfter catches one request at its first write to next's table (the
// service's key record, say) made after its write to s's table (the last
// effect table): whileHeld is called once the request waits on next's
// lock, having got past s's. A crash there lands where a service that
// completes its key record in a transaction of its own, after the effects
// commit, has committed the effects and not yet completed the record; in a
// service that writes the record in the effects' transaction, before their
// commit.
//
// The hand-off: s's lock is taken and the request sent; once it waits on
// it, next's lock is asked for on a second connection, and once that
// request is granted or queued, s's lock is released. A request whose
// transaction had already written next's table before s's (the record
// claimed first) holds next's table itself: next's lock is granted only
// when that transaction ends, and the request is caught at its next write
// there in a later transaction. One that never writes there again is
// answered, and the report does not fire.
func (s Stall) HoldAfter(ctx context.Context, next Stall, call func(ctx context.Context, answered *atomic.Int64), whileHeld func()) (StallReport, error) {
	if err := errors.Join(s.valid(), next.valid()); err != nil {
		return StallReport{}, err
	}
	wait := cmpOr(s.Wait, DefaultStallWait)
	// The call is waited for last, once both locks are gone: no goroutine
	// outlives HoldAfter, and none waits on a lock nobody will release.
	var done chan struct{}
	defer func() {
		if done != nil {
			<-done
		}
	}()
	a, err := s.begin(ctx, wait)
	if err != nil {
		return StallReport{}, err
	}
	aHeld := true
	defer func() {
		if aHeld {
			_ = s.release(ctx, a.conn, a.tx)
		}
		a.conn.Release()
	}()
	b, pid, err := next.standby(ctx)
	if err != nil {
		return StallReport{}, err
	}
	defer func() {
		_ = next.release(ctx, b.conn, b.tx)
		b.conn.Release()
	}()

	var answered atomic.Int64
	done = make(chan struct{})
	go func() {
		defer close(done)
		call(ctx, &answered)
	}()

	first, _, err := s.poll(ctx, a.tx, 1, wait, &answered, nil)
	if err != nil || !first.Fired || first.Blocked < 1 {
		return StallReport{}, err
	}
	aHeld = false
	if err := s.handOff(ctx, a, next, b.tx, pid, wait); err != nil {
		return StallReport{}, err
	}
	// s's lock is gone and next's held: the request goes on to its next
	// write to next's table, or is answered without one.
	rep, _, err := next.poll(ctx, b.tx, 1, wait, &answered, nil)
	if err == nil && rep.Fired && rep.Blocked >= 1 {
		whileHeld()
	} else {
		rep.Fired = false
	}
	return rep, err
}

// standby opens the transaction that takes s's lock later, in a
// hand-off, and returns it with its backend's pid, by which the hand-off
// sees when the lock has been asked for.
func (s Stall) standby(ctx context.Context) (held, int, error) {
	conn, err := s.Pool.Acquire(ctx)
	if err != nil {
		return held{}, 0, fmt.Errorf("fault: stall on table %s: connect: %w", s.Table, err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		conn.Release()
		return held{}, 0, fmt.Errorf("fault: stall on table %s: begin: %w", s.Table, err)
	}
	var pid int
	if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		_ = s.release(ctx, conn, tx)
		conn.Release()
		return held{}, 0, fmt.Errorf("fault: stall on table %s: %w", s.Table, err)
	}
	return held{conn: conn, tx: tx}, pid, nil
}

// handOff passes the request from s's lock, held in a, to next's, taken
// in btx (backend pid): next's lock is asked for while s's is held, then
// s's released, so the request is never free between the two. The LOCK
// statement returns once the request's transaction lets it. a is released
// whatever happens.
func (s Stall) handOff(ctx context.Context, a held, next Stall, btx pgx.Tx, pid int, wait time.Duration) error {
	locked := make(chan error, 1)
	go func() {
		_, err := next.lock(ctx, btx, fmt.Sprintf("SET LOCAL lock_timeout = %d;", max(2*wait.Milliseconds(), 1)))
		locked <- err
	}()
	askErr := waitAsked(ctx, a.tx, pid, wait)
	relErr := s.release(ctx, a.conn, a.tx)
	return errors.Join(<-locked, askErr, relErr)
}

// held is a stall's lock taken: its connection and transaction.
type held struct {
	conn *pgxpool.Conn
	tx   pgx.Tx
}

// begin takes the stall's lock in a transaction of its own, waiting at
// most wait for it.
func (s Stall) begin(ctx context.Context, wait time.Duration) (held, error) {
	conn, err := s.Pool.Acquire(ctx)
	if err != nil {
		return held{}, fmt.Errorf("fault: stall on table %s: connect: %w", s.Table, err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		conn.Release()
		return held{}, fmt.Errorf("fault: stall on table %s: begin: %w", s.Table, err)
	}
	if _, err := s.lock(ctx, tx, fmt.Sprintf("SET LOCAL lock_timeout = %d;", max(wait.Milliseconds(), 1))); err != nil {
		err = errors.Join(err, s.release(ctx, conn, tx))
		conn.Release()
		return held{}, err
	}
	return held{conn: conn, tx: tx}, nil
}

// waitAsked waits until backend pid has asked for a lock (granted or
// not), bounded by wait.
func waitAsked(ctx context.Context, tx pgx.Tx, pid int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		var asked bool
		if err := tx.QueryRow(context.WithoutCancel(ctx), `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'relation' AND mode = 'ExclusiveLock')`, pid).Scan(&asked); err != nil {
			return fmt.Errorf("fault: stall hand-off: reading pg_locks: %w", err)
		}
		if asked {
			return nil
		}
		if !time.Now().Before(deadline) {
			return errors.New("fault: stall hand-off: the second lock was never asked for")
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(pollEvery):
		}
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
