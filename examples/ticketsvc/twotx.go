package ticketsvc

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"
)

// The two designs that split a call's work over two transactions, each
// wrong only when the process dies between them (a crash at a point of
// the call's database work: crash-at).

// createKeyTxFirst is the key-tx-first mode: it commits the key as in
// progress in a first transaction, then writes the ticket, its
// notification and the key's completion in a second, as idempotency
// middlewares that keep a "started" record do. A call that finds the key
// in progress answers in_flight. It releases the key when the work fails
// (an error of the database), so a retry may do the work; the mistake: a
// process that dies after the first commit releases nothing, and the key
// is in progress forever.
func (s *Service) createKeyTxFirst(ctx context.Context, req createRequest) (outcome, error) {
	out, err := s.createMarked(ctx, req)
	if err != nil {
		// The work failed (or its client gave up on it): let a retry do
		// it. Nothing is released when the process dies instead.
		bg := context.WithoutCancel(ctx)
		rerr := pgx.BeginFunc(bg, s.pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(bg, `DELETE FROM idempotency_keys WHERE tenant = $1 AND request_key = $2 AND ticket_id IS NULL`, req.tenant, req.lookup)
			return err
		})
		if rerr != nil {
			return outcome{}, errors.Join(err, fmt.Errorf("release key: %w", rerr))
		}
	}
	return out, err
}

// createEffectsTxFirst is the effects-tx-first mode: under a lock on the
// action held by its database session across both transactions (a crash
// ends the session and the lock with it), it looks the key up and writes
// the ticket and its notification in a first transaction, then the key
// record in a second. The mistake: a process that dies after the first
// commit leaves a ticket no key names, and the retry creates another.
func (s *Service) createEffectsTxFirst(ctx context.Context, req createRequest) (outcome, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return outcome{}, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	id := actionLockID(req.tenant, req.lookup, s.b.globalKeys)
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, id).Scan(&locked); err != nil {
		return outcome{}, fmt.Errorf("lock action: %w", err)
	}
	if !locked {
		return inFlight, nil
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, id); err != nil {
			// A session still holding the lock must not go back to the pool.
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	var out outcome
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		prior, found, err := s.findKey(ctx, tx, req)
		switch {
		case err != nil:
			return err
		case found:
			out, err = s.replay(ctx, tx, req, prior)
			return err
		}
		ticket, err := insertTicket(ctx, tx, s.schema.spec, req)
		if err != nil {
			return err
		}
		out = outcome{status: http.StatusCreated, ticketID: ticket}
		return insertOutbox(ctx, tx, s.schema.spec, req, ticket)
	})
	if err != nil || out.status != http.StatusCreated {
		return out, err
	}
	// The mistake: the key record in a transaction of its own, after the
	// effects have committed.
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return insertKey(ctx, tx, req, out.ticketID) })
	return out, err
}
