package dbstall

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// waitingSQL lists every session that waits on a lock, whoever holds it.
const waitingSQL = `SELECT coalesce(array_agg(DISTINCT pid), '{}') FROM pg_locks WHERE NOT granted`

// candidatesSQL lists the sessions that wait on the stall's lock itself
// (not behind another session that does) other than those in $1: the
// call's own session, the first write of its action, waits on the table
// directly, while a bystander waiting behind the call's own locks (its
// key row) is never one.
const candidatesSQL = `SELECT coalesce(array_agg(DISTINCT pid), '{}') FROM pg_locks
WHERE NOT granted AND pid <> pg_backend_pid() AND pg_backend_pid() = ANY(pg_blocking_pids(pid))
	AND NOT (pid = ANY($1::int[]))`

// Fail is the transient-failure nemesis: Hold for one request, and once it
// waits on the table's lock its database session is terminated, as a
// failover, an idle-session reaper or a restarted pooler would end it.
// The service sees its statement fail (SQLSTATE 57P01) and its
// transaction lost, and answers as it answers any passing database error.
// The report fires only when the session was seen waiting and ended.
//
// Only the call's own session is ended, never a bystander's (another
// plan's call, another client of the database) waiting behind the same
// lock: the sessions waiting before the call was sent are left out, so
// are those waiting behind another session (the call's own locks), and
// of those that started waiting on the lock itself since, one alone is
// taken for the call's; two or more leave the fault unfired rather than
// end the wrong one. Where the database proxy stands, db-error does not
// come here (package fault's errorAtStatement).
//
// Ending another role's session needs that role's membership or
// pg_signal_backend; without it Fail returns an error that says so.
func (s Stall) Fail(ctx context.Context, call func(ctx context.Context, answered *atomic.Int64)) (StallReport, error) {
	return s.fail(ctx, nil, call)
}

// fail is Fail with first (nil for none) run once the lock is held, before
// the sessions already waiting are listed: a test's bystander.
func (s Stall) fail(ctx context.Context, first func(context.Context), call func(ctx context.Context, answered *atomic.Int64)) (StallReport, error) {
	ended := 0
	var before atomic.Pointer[[]int32] // set once the call is about to be sent
	var answeredBy atomic.Pointer[atomic.Int64]
	send := func(ctx context.Context, answered *atomic.Int64) {
		if first != nil {
			first(ctx)
		}
		var pids []int32
		if err := s.Pool.QueryRow(ctx, waitingSQL).Scan(&pids); err == nil {
			answeredBy.Store(answered)
			before.Store(&pids)
		}
		call(ctx, answered)
	}
	rep, err := s.hold(ctx, 1, send, func(ctx context.Context, tx pgx.Tx) error {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
		pid, err := s.callsSession(ctx, qctx, tx, &before, &answeredBy)
		if err != nil || pid == 0 {
			return err
		}
		var ok bool
		if err := tx.QueryRow(qctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "42501" {
				return cannotStall{fmt.Errorf("fault: db-error on table %s: the role may not end the service's database sessions: "+
					"GRANT pg_signal_backend, or connect as the service's role: %w", s.Table, err)}
			}
			return fmt.Errorf("fault: db-error on table %s: ending the waiting session: %w", s.Table, err)
		}
		if ok {
			ended = 1
		}
		return nil
	})
	rep.Fired = rep.Fired && ended > 0
	return rep, err
}

// callsSession waits, up to the stall's wait, until exactly one session
// that was not waiting before the call was sent waits behind the lock, and
// returns it; 0 when the call was answered first, the wait ran out, or two
// or more started waiting (one may be a bystander's).
func (s Stall) callsSession(ctx, qctx context.Context, tx pgx.Tx, before *atomic.Pointer[[]int32], answeredBy *atomic.Pointer[atomic.Int64]) (int32, error) {
	deadline := time.Now().Add(positiveOr(s.Wait, DefaultStallWait))
	for ; time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(pollEvery) {
		old := before.Load()
		if old == nil {
			continue // the call is not sent yet
		}
		var pids []int32
		if err := tx.QueryRow(qctx, candidatesSQL, *old).Scan(&pids); err != nil {
			return 0, fmt.Errorf("fault: db-error on table %s: finding the call's session: %w", s.Table, err)
		}
		switch {
		case len(pids) == 1:
			return pids[0], nil
		case len(pids) > 1:
			return 0, nil
		case answeredBy.Load().Load() > 0:
			return 0, nil
		}
	}
	return 0, nil
}

// positiveOr is d, or def when d is not positive.
func positiveOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
