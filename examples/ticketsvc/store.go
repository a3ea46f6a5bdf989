package ticketsvc

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The SQL of the service, one function per statement, so that a mode that
// needs a different statement replaces just that one. The statements that
// differ between layouts come from the layout's spec.

// tryLockAction takes the transaction-scoped advisory lock of an action and
// reports whether it got it. With global set the lock ignores the tenant.
func tryLockAction(ctx context.Context, tx pgx.Tx, tenant, key string, global bool) (bool, error) {
	var ok bool
	err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, actionLockID(tenant, key, global)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("lock action: %w", err)
	}
	return ok, nil
}

// actionLockID hashes an action to a 64-bit advisory lock ID. Lengths are
// written before the strings so that ("ab","c") and ("a","bc") differ.
func actionLockID(tenant, key string, global bool) int64 {
	h := sha256.New()
	var n [8]byte
	if global {
		h.Write([]byte{'g'})
	} else {
		h.Write([]byte{'t'})
		binary.BigEndian.PutUint64(n[:], uint64(len(tenant)))
		h.Write(n[:])
		h.Write([]byte(tenant))
	}
	binary.BigEndian.PutUint64(n[:], uint64(len(key)))
	h.Write(n[:])
	h.Write([]byte(key))
	return int64(binary.BigEndian.Uint64(h.Sum(nil)))
}

// storedKey is a row of idempotency_keys. A ticketID of 0 is a key
// claimed whose ticket is not written yet (the modes with pending keys).
type storedKey struct {
	fingerprint string
	ticketID    int64
}

// findKey looks up a key; with global set it ignores the tenant. Where a key
// is stored more than once (the global-keys mode, or a mode without the
// unique constraints) it takes the oldest, so replays stay stable.
func findKey(ctx context.Context, tx pgx.Tx, tenant, key string, global bool) (storedKey, bool, error) {
	var (
		k   storedKey
		err error
	)
	if global {
		err = tx.QueryRow(ctx, `SELECT fingerprint, coalesce(ticket_id, 0) FROM idempotency_keys
			WHERE request_key = $1 ORDER BY ticket_id LIMIT 1`, key).Scan(&k.fingerprint, &k.ticketID)
	} else {
		err = tx.QueryRow(ctx, `SELECT fingerprint, coalesce(ticket_id, 0) FROM idempotency_keys
			WHERE tenant = $1 AND request_key = $2 ORDER BY ticket_id LIMIT 1`, tenant, key).Scan(&k.fingerprint, &k.ticketID)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return storedKey{}, false, nil
	}
	if err != nil {
		return storedKey{}, false, fmt.Errorf("find key: %w", err)
	}
	return k, true, nil
}

func insertTicket(ctx context.Context, tx pgx.Tx, l *layoutSpec, req createRequest) (int64, error) {
	var id int64
	err := tx.QueryRow(ctx, l.insertTicket, pgx.NamedArgs{
		"tenant": req.tenant, "key": req.key, "subject": req.subject,
	}).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert ticket: %w", err)
	}
	return id, nil
}

func insertOutbox(ctx context.Context, tx pgx.Tx, l *layoutSpec, req createRequest, ticketID int64) error {
	_, err := tx.Exec(ctx, l.insertOutbox, pgx.NamedArgs{
		"tenant": req.tenant, "key": req.key, "ticket_id": ticketID,
	})
	if err != nil {
		return fmt.Errorf("insert outbox: %w", err)
	}
	return nil
}

// claimKey inserts the key row with no ticket yet, unless the key is
// stored already; it waits for a concurrent claim of the key to end.
func claimKey(ctx context.Context, tx pgx.Tx, req createRequest) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (tenant, request_key, fingerprint)
		VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, req.tenant, req.lookup, req.fingerprint)
	if err != nil {
		return false, fmt.Errorf("claim key: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// markKey inserts the key as in progress (no ticket yet); a key already
// there is a unique violation.
func markKey(ctx context.Context, tx pgx.Tx, req createRequest) error {
	_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (tenant, request_key, fingerprint)
		VALUES ($1, $2, $3)`, req.tenant, req.lookup, req.fingerprint)
	if err != nil {
		return fmt.Errorf("mark key: %w", err)
	}
	return nil
}

// setKeyTicket names the claimed key's ticket.
func setKeyTicket(ctx context.Context, tx pgx.Tx, req createRequest, ticketID int64) error {
	_, err := tx.Exec(ctx, `UPDATE idempotency_keys SET ticket_id = $3 WHERE tenant = $1 AND request_key = $2`,
		req.tenant, req.lookup, ticketID)
	if err != nil {
		return fmt.Errorf("set key ticket: %w", err)
	}
	return nil
}

func insertKey(ctx context.Context, tx pgx.Tx, req createRequest, ticketID int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (tenant, request_key, fingerprint, ticket_id)
		VALUES ($1, $2, $3, $4)`, req.tenant, req.lookup, req.fingerprint, ticketID)
	if err != nil {
		return fmt.Errorf("insert key: %w", err)
	}
	return nil
}
