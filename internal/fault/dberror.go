package fault

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemstress/idemstress/internal/model"
)

// terminateSQL ends the database sessions that wait because of the
// stall's lock (the set blockedSQL counts) and counts those it ended.
const terminateSQL = `WITH RECURSIVE waiting AS (
	SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND pid <> pg_backend_pid()
), behind(pid) AS (
	SELECT pid FROM waiting WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))
	UNION
	SELECT w.pid FROM waiting w JOIN behind b ON b.pid = ANY(pg_blocking_pids(w.pid))
)
SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM behind`

// Fail is the transient-failure nemesis: Hold for one request, and once it
// waits on the table's lock its database session is terminated, as a
// failover, an idle-session reaper or a restarted pooler would end it.
// The service sees its statement fail (SQLSTATE 57P01) and its
// transaction lost, and answers as it answers any passing database error.
// The report fires only when the session was seen waiting and ended.
//
// Ending another role's session needs that role's membership or
// pg_signal_backend; without it Fail returns an error that says so.
func (s Stall) Fail(ctx context.Context, call func(ctx context.Context, answered *atomic.Int64)) (StallReport, error) {
	ended := 0
	rep, err := s.hold(ctx, 1, call, func(ctx context.Context, tx pgx.Tx) error {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
		if err := tx.QueryRow(qctx, terminateSQL).Scan(&ended); err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "42501" {
				return cannotStall{fmt.Errorf("fault: db-error on table %s: the role may not end the service's database sessions: "+
					"GRANT pg_signal_backend, or connect as the service's role: %w", s.Table, err)}
			}
			return fmt.Errorf("fault: db-error on table %s: ending the waiting session: %w", s.Table, err)
		}
		return nil
	})
	rep.Fired = rep.Fired && ended > 0
	return rep, err
}

// dbError sends the call with the last effect table write-locked and,
// once the call waits on that lock, ends its database session (Fail): the
// service's database work fails once, as a passing database error would
// make it, and the service answers as it answers one. What the call's
// retries must get is the contract's errors: policy (checks.ErrorReplay).
func dbError(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	effects := env.EffectStall()
	if effects == nil {
		return CallOutcome{}, needs(call.Fault, "an effect table to wait on")
	}
	var op model.Op
	var callErr error
	rep, err := effects.Fail(ctx, func(ctx context.Context, answered *atomic.Int64) {
		op, callErr = env.Send(ctx, call, 0, nil)
		if callErr == nil && op.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	})
	out := CallOutcome{Ops: []model.Op{op}}
	if err != nil {
		// A role that may not end the service's sessions is told so by err.
		return out, infrastructure(ctx, call.Fault, err)
	}
	out.Fired, out.Held = rep.Fired, rep.Blocked
	if !rep.Fired {
		out.Note = unfired(op, effects.Table, "failed")
	}
	return out, callErr
}
