// Package dbstall holds a call's database work where a fault needs it
// held: Stall locks a table (LOCK TABLE … IN EXCLUSIVE MODE) while a
// burst arrives, so that every request reaches its write before any of
// them commits and a check-then-insert race happens every time instead
// of now and then; Barrier does the same in the database proxy (package
// pgproxy) without a lock, holding each call at its first write. On the
// same lock, Fail ends the session of the one call waiting on it (a
// db-error where no proxy stands), Overrun holds it past its lease and
// lets its retry arrive (slow-original), and HoldAfter catches it at its
// write to a second table (the key record) after the first. It knows
// nothing of plans or fault kinds: package fault's faults and its nemesis
// hold what they hold through it, and the session (package stress)
// checks that each stall can hold its table.
package dbstall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Stall holds LOCK TABLE <table> IN EXCLUSIVE MODE (reads pass, writes
// wait) in its own transaction while a burst is released, waits until every
// request of the burst is either blocked on that lock or already answered,
// then releases it: every request has done its reads before any of them
// writes, so a check-then-insert race becomes deterministic. The stall
// writes nothing; its transaction is rolled back.
type Stall struct {
	// Pool is the tester's pool; the stall takes one connection of it for
	// the duration of Run.
	Pool *pgxpool.Pool
	// Table is the effect table, as named in the contract: exact case,
	// possibly schema-qualified ("billing.invoices").
	Table string
	// Wait bounds how long the requests are given to block (0:
	// DefaultStallWait), from the last one seen arriving (blocked or
	// answered), and at most MaxStallWaits times Wait in all, which is
	// also how long the first one may take: on a loaded machine a burst's
	// connections take a while to dial and its requests arrive one by one,
	// and each one that does shows that the rest are on their way.
	// It also bounds the wait for the lock itself, when a write of the
	// target holds a conflicting one.
	Wait time.Duration
}

// StallReport says what a stall did.
type StallReport struct {
	// Fired: every request was seen blocked or answered before release.
	// When false the race was not forced and the case is inconclusive.
	Fired bool
	// Blocked is how many requests were seen waiting on the lock at release.
	Blocked int
	// Released is when the lock was let go: from then on the requests it
	// held had the rest of their call timeout to be answered.
	Released time.Time
}

// DefaultStallWait is how long a burst's requests are given to block on
// the stall: on loopback they take milliseconds, and a burst that waits it
// out proves nothing, so a longer wait only slows an inconclusive run.
const DefaultStallWait = time.Second

// MaxStallWaits bounds a stall's whole wait, in Waits, however its
// requests trickle in.
const MaxStallWaits = 4

const (
	// pollEvery is how often pg_locks is read while requests arrive. One
	// read costs ~0.2 ms of a backend, so this keeps the poller under a
	// fifth of a core while adding at most a millisecond to the stall.
	pollEvery = time.Millisecond
	// releaseTimeout bounds the ROLLBACK that releases the lock, which must
	// run even when the caller's context has ended.
	releaseTimeout = 5 * time.Second
)

// blockedSQL counts the backends, other than ours, that wait because of
// our lock: on the stalled table itself, or on any lock held by a
// transaction that itself (transitively) waits on it. A correct key-first
// service (INSERT its key row ... ON CONFLICT DO NOTHING, then the effect
// rows) makes a duplicate wait on the first request's row lock, not on the
// table; that request has arrived just the same. pg_locks and
// pg_blocking_pids read the lock manager live at each call, unlike
// pg_stat_activity, which a transaction sees as a snapshot taken at its
// first read.
const blockedSQL = `WITH RECURSIVE waiting AS (
	SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND pid <> pg_backend_pid()
), behind(pid) AS (
	SELECT pid FROM waiting WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))
	UNION
	SELECT w.pid FROM waiting w JOIN behind b ON b.pid = ANY(pg_blocking_pids(w.pid))
)
SELECT count(*) FROM behind`

// ErrCannotStall marks a stall that can never work as configured: the
// table does not exist, or the role may not lock it. Anything else a stall
// returns is the database not answering.
var ErrCannotStall = errors.New("cannot stall this table")

// cannotStall is an error that is an ErrCannotStall, worded as it is.
type cannotStall struct{ err error }

func (c cannotStall) Error() string        { return c.err.Error() }
func (c cannotStall) Unwrap() error        { return c.err }
func (c cannotStall) Is(target error) bool { return target == ErrCannotStall }

// Check verifies up front that the stall can take its lock: the table
// exists and the pool's role may lock it in EXCLUSIVE mode, which needs
// UPDATE, DELETE or TRUNCATE on it. It takes the lock with NOWAIT and
// rolls back at once, so it never waits behind a writer.
func (s Stall) Check(ctx context.Context) error {
	if err := s.valid(); err != nil {
		return err
	}
	conn, err := s.Pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("fault: db-stall on table %s: connect: %w", s.Table, err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("fault: db-stall on table %s: begin: %w", s.Table, err)
	}
	_, lockErr := s.lock(ctx, tx, "NOWAIT")
	if err := s.release(ctx, conn, tx); err != nil {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(lockErr, &pgErr) && pgErr.Code == "55P03" {
		return nil // lock_not_available: allowed, but a writer holds it right now
	}
	return lockErr
}

// Run takes the lock, calls burst in a goroutine (it sends n requests and
// increments answered as each answer is read), polls pg_locks until
// blocked+answered >= n or Wait passes, releases the lock (ROLLBACK), and
// waits for burst to return. The lock is released whatever happens: when
// ctx ends, when polling fails, and when burst panics, in which case Run
// panics with the same value once the lock is gone.
//
// A request that waits on another request (say, on its row of an
// idempotency-key table) which itself waits on this table's lock counts as
// blocked: it has arrived, and will go on once the lock is released.
func (s Stall) Run(ctx context.Context, n int, burst func(ctx context.Context, answered *atomic.Int64)) (StallReport, error) {
	return s.hold(ctx, n, burst, nil)
}

// Hold is Run that calls whileHeld once every request of the burst is seen
// blocked (none answered), before the lock is released: a crash there
// lands between the write the requests made before the stalled table and
// their write to it. whileHeld is not called when the stall did not fire
// that way; Hold's report then says so.
func (s Stall) Hold(ctx context.Context, n int, burst func(ctx context.Context, answered *atomic.Int64), whileHeld func()) (StallReport, error) {
	if whileHeld == nil {
		return s.hold(ctx, n, burst, nil)
	}
	return s.hold(ctx, n, burst, func(context.Context, pgx.Tx) error { whileHeld(); return nil })
}

// hold is Run, or Hold when whileHeld is set; whileHeld gets the stall's
// own transaction, and an error it returns fails the stall.
func (s Stall) hold(ctx context.Context, n int, burst func(ctx context.Context, answered *atomic.Int64), whileHeld func(context.Context, pgx.Tx) error) (StallReport, error) {
	if err := s.valid(); err != nil {
		return StallReport{}, err
	}
	wait := s.Wait
	if wait <= 0 {
		wait = DefaultStallWait
	}
	conn, err := s.Pool.Acquire(ctx)
	if err != nil {
		return StallReport{}, fmt.Errorf("fault: db-stall on table %s: connect: %w", s.Table, err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return StallReport{}, fmt.Errorf("fault: db-stall on table %s: begin: %w", s.Table, err)
	}
	// lock_timeout 0 would mean no timeout at all.
	_, err = s.lock(ctx, tx, fmt.Sprintf("SET LOCAL lock_timeout = %d;", max(wait.Milliseconds(), 1)))
	if err != nil {
		return StallReport{}, errors.Join(err, s.release(ctx, conn, tx))
	}

	var answered atomic.Int64
	done := goReporting(ctx, &answered, burst)

	rep, burstOver, pollErr := s.poll(ctx, tx, int64(n), wait, &answered, done)
	if whileHeld != nil {
		if rep.Fired && rep.Blocked >= n && pollErr == nil {
			pollErr = whileHeld(ctx, tx)
		} else {
			rep.Fired = false
		}
	}
	relErr := s.release(ctx, conn, tx)
	rep.Released = time.Now()
	p := burstOver
	if p == nil {
		p = <-done
	}
	if p != nil && p.value != nil {
		panic(p.value)
	}
	return rep, errors.Join(pollErr, relErr)
}

func (s Stall) valid() error {
	switch {
	case s.Table == "":
		return cannotStall{errors.New("fault: db-stall: no table named (Stall.Table)")}
	case s.Pool == nil:
		return fmt.Errorf("fault: db-stall on table %s: no database pool (Stall.Pool)", s.Table)
	}
	return nil
}

// panicked carries a burst's panic to Run; a nil value means it returned.
type panicked struct{ value any }

// poll watches the lock until every request is blocked or answered, Wait
// passes, ctx ends or burst returns. It returns burst's result when it saw
// it. Queries run detached from ctx: cancelling a query would make pgx
// close the connection, and the lock's release would then be up to the
// server noticing, after Run returned; instead ctx is checked between polls
// and the lock released by ROLLBACK.
func (s Stall) poll(ctx context.Context, tx pgx.Tx, n int64, wait time.Duration, answered *atomic.Int64, done <-chan *panicked) (StallReport, *panicked, error) {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), MaxStallWaits*wait+releaseTimeout)
	defer cancel()
	// Until a first request arrives, the burst may still be dialling its
	// connections (lastbyte dials every call before the release): give it
	// the whole bound.
	start := time.Now()
	deadline, seen := start.Add(MaxStallWaits*wait), int64(0)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var rep StallReport
	var over *panicked
	for overSeen := false; ; {
		if ctx.Err() != nil {
			return rep, over, fmt.Errorf("fault: db-stall on table %s: %w", s.Table, context.Cause(ctx))
		}
		// answered first: a request answered before the pg_locks read is
		// no longer waiting on the lock, so none is counted twice.
		a := answered.Load()
		if err := tx.QueryRow(qctx, blockedSQL).Scan(&rep.Blocked); err != nil {
			return rep, over, fmt.Errorf("fault: db-stall on table %s: reading pg_locks: %w", s.Table, err)
		}
		if int64(rep.Blocked)+a >= n {
			rep.Fired = true
			return rep, over, nil
		}
		if now := int64(rep.Blocked) + a; now > seen {
			seen = now
			deadline = time.Now().Add(wait)
			if last := start.Add(MaxStallWaits * wait); deadline.After(last) {
				deadline = last
			}
		}
		if overSeen || !time.Now().Before(deadline) {
			return rep, over, nil
		}
		select {
		case <-ctx.Done():
			return rep, over, fmt.Errorf("fault: db-stall on table %s: %w", s.Table, context.Cause(ctx))
		case over = <-done:
			// burst is over with the lock held: count once more, then stop.
			overSeen = true
			if over == nil {
				over = &panicked{}
			}
		case <-tick.C:
		}
	}
}

// lock resolves the table and locks it in EXCLUSIVE mode inside tx, after
// running prelude (a SET LOCAL) or with the suffix NOWAIT. It returns the
// table's OID.
func (s Stall) lock(ctx context.Context, tx pgx.Tx, how string) (uint32, error) {
	parts := strings.Split(s.Table, ".")
	ident := pgx.Identifier(parts).Sanitize()
	var relid *uint32
	var role, quoted string
	// quote_ident quotes just where SQL needs it, reserved words included,
	// so the GRANT in the error can be pasted as it is.
	err := tx.QueryRow(ctx, `SELECT to_regclass($1)::oid, quote_ident(current_user),
	(SELECT string_agg(quote_ident(p), '.' ORDER BY o) FROM unnest($2::text[]) WITH ORDINALITY AS u(p, o))`,
		ident, parts).Scan(&relid, &role, &quoted)
	if err != nil {
		return 0, fmt.Errorf("fault: db-stall on table %s: %w", s.Table, err)
	}
	if relid == nil {
		return 0, cannotStall{fmt.Errorf("fault: db-stall on table %s: no such table (unqualified names follow the role's search_path)", s.Table)}
	}
	sql := "LOCK TABLE " + ident + " IN EXCLUSIVE MODE"
	if how == "NOWAIT" {
		sql += " NOWAIT"
	} else {
		sql = how + sql
	}
	if _, err := tx.Exec(ctx, sql); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			switch pgErr.Code {
			case "42501": // insufficient_privilege
				return 0, cannotStall{fmt.Errorf("fault: db-stall on table %s: role %s may not lock it IN EXCLUSIVE MODE, which needs UPDATE, DELETE or TRUNCATE on the table (the stall writes nothing, it rolls back): GRANT UPDATE ON %s TO %s: %w",
					s.Table, role, quoted, role, err)}
			case "55P03": // lock_not_available
				return 0, fmt.Errorf("fault: db-stall on table %s: could not take the lock: another session holds a conflicting one (a write in progress?): %w", s.Table, err)
			}
		}
		return 0, fmt.Errorf("fault: db-stall on table %s: %s: %w", s.Table, sql, err)
	}
	return *relid, nil
}

// release rolls tx back, ending the lock, even when ctx has ended. If the
// rollback fails the connection is closed and taken out of the pool: the
// server then ends the session, and the lock with it.
func (s Stall) release(ctx context.Context, conn *pgxpool.Conn, tx pgx.Tx) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := tx.Rollback(rctx); err != nil {
		_ = conn.Conn().Close(rctx)
		return fmt.Errorf("fault: db-stall on table %s: releasing the lock: %w", s.Table, err)
	}
	return nil
}

// goReporting runs call in a goroutine of its own and says on the channel
// it returns when call is over: nil, or the value it panicked with.
func goReporting(ctx context.Context, answered *atomic.Int64, call func(context.Context, *atomic.Int64)) chan *panicked {
	done := make(chan *panicked, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- &panicked{v}
				return
			}
			done <- nil
		}()
		call(ctx, answered)
	}()
	return done
}
