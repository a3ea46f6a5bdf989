package ticketsvc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ShortLease is the in-progress lease of the short-lease mode: how long
// its claim on a key lasts before a retry may take the key over. A
// contract for that mode declares it (lease:).
const ShortLease = 250 * time.Millisecond

// createLeased is the short-lease mode: it claims the key in a committed
// transaction of its own, stamped with an expiry (now + ShortLease), and
// does the work in a second one that completes the key. A call that finds
// the claim unexpired answers in_flight; one that finds it expired takes
// it over and does the work again. That recovers from a crash, which
// leaves a claim nobody completes; the mistake is that an original slower
// than the lease is still running, and it completes too: two tickets, two
// notifications, both calls answered 201. A correct lease would fence the
// original off (its completion refused once the claim is no longer its
// own), or outlast any original.
func (s *Service) createLeased(ctx context.Context, req createRequest) (outcome, error) {
	var out outcome
	claimed := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The action lock makes the claim one step across processes; it
		// ends with this transaction, before the work.
		locked, err := tryLockAction(ctx, tx, req.tenant, req.lookup, s.b.globalKeys)
		if err != nil || !locked {
			out = inFlight
			return err
		}
		prior, expired, found, err := findLease(ctx, tx, req)
		switch {
		case err != nil:
			return err
		case found && prior.ticketID != 0:
			out, err = s.replay(ctx, tx, req, prior)
			return err
		case found && !expired:
			out = inFlight
			return nil
		}
		claimed = true
		return claimLease(ctx, tx, req, found)
	})
	if err != nil || !claimed {
		return out, err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		out, err = s.createClaimed(ctx, tx, req)
		return err
	})
	return out, err
}

// findLease looks the call's key up with whether its lease has expired.
func findLease(ctx context.Context, tx pgx.Tx, req createRequest) (k storedKey, expired, found bool, err error) {
	err = tx.QueryRow(ctx, `SELECT fingerprint, coalesce(ticket_id, 0), coalesce(lease_expires < now(), true)
		FROM idempotency_keys WHERE tenant = $1 AND request_key = $2 ORDER BY ticket_id LIMIT 1`,
		req.tenant, req.lookup).Scan(&k.fingerprint, &k.ticketID, &expired)
	if errors.Is(err, pgx.ErrNoRows) {
		return storedKey{}, false, false, nil
	}
	if err != nil {
		return storedKey{}, false, false, fmt.Errorf("find key lease: %w", err)
	}
	return k, expired, true, nil
}

// claimLease claims the key until now + ShortLease: a new key row, or
// (takeover) the expired claim's row, with this call's fingerprint.
func claimLease(ctx context.Context, tx pgx.Tx, req createRequest, takeover bool) error {
	lease := ShortLease.String()
	var err error
	if takeover {
		_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET fingerprint = $3, lease_expires = now() + $4::interval
			WHERE tenant = $1 AND request_key = $2`, req.tenant, req.lookup, req.fingerprint, lease)
	} else {
		_, err = tx.Exec(ctx, `INSERT INTO idempotency_keys (tenant, request_key, fingerprint, lease_expires)
			VALUES ($1, $2, $3, now() + $4::interval)`, req.tenant, req.lookup, req.fingerprint, lease)
	}
	if err != nil {
		return fmt.Errorf("claim key lease: %w", err)
	}
	return nil
}
