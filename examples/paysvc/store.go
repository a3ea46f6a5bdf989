package paysvc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// The SQL of the service, one function per statement.

// claimKey inserts the key's row with no payment yet, unless the key is
// stored already, and reports whether it did. It waits for a concurrent
// claim of the key to end, at most wait: then it fails with
// lock_not_available.
func claimKey(ctx context.Context, tx pgx.Tx, req createRequest, wait time.Duration) (bool, error) {
	ms := min(max(wait.Milliseconds(), 1), math.MaxInt32) // 0 would wait forever
	// The subquery, a fence (OFFSET 0), reads the setting before it is set.
	var prev string
	err := tx.QueryRow(ctx, `SELECT prev, set_config('lock_timeout', $1, true)
		FROM (SELECT current_setting('lock_timeout') AS prev OFFSET 0) s`, strconv.FormatInt(ms, 10)+"ms").Scan(&prev, new(string))
	if err != nil {
		return false, fmt.Errorf("set lock_timeout: %w", err)
	}
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (merchant, idempotency_key) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, req.merchant, req.key)
	if err != nil {
		return false, fmt.Errorf("claim key: %w", err)
	}
	// The writes after the claim wait as long as the database's setting
	// says, as any other statement of the service.
	if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true)`, prev); err != nil {
		return false, fmt.Errorf("restore lock_timeout %q: %w", prev, err)
	}
	return tag.RowsAffected() == 1, nil
}

// setKeyPayment names the claimed key's payment.
func setKeyPayment(ctx context.Context, tx pgx.Tx, req createRequest, paymentID int64) error {
	_, err := tx.Exec(ctx, `UPDATE idempotency_keys SET payment_id = $3 WHERE merchant = $1 AND idempotency_key = $2`,
		req.merchant, req.key, paymentID)
	if err != nil {
		return fmt.Errorf("set key payment: %w", err)
	}
	return nil
}

const paymentColumns = `p.id, p.merchant, p.amount, p.currency, p.source_id, p.note, p.status, p.created_at, p.request_fingerprint`

// The lookups of a stored payment findPayment runs. Where a key names more
// than one payment (a mistake's duplicates, or merchant-leak's keys of
// several merchants) they take the oldest, so replays stay stable.
const (
	// claimedPayment is the payment of a claimed key ($1 merchant, $2 key).
	claimedPayment = `SELECT ` + paymentColumns + ` FROM idempotency_keys k JOIN payments p ON p.id = k.payment_id
		WHERE k.merchant = $1 AND k.idempotency_key = $2`
	// claimedPaymentAnyMerchant ignores the merchant ($1 key).
	claimedPaymentAnyMerchant = `SELECT ` + paymentColumns + ` FROM idempotency_keys k JOIN payments p ON p.id = k.payment_id
		WHERE k.idempotency_key = $1 ORDER BY p.id LIMIT 1`
	// storedPayment reads the payments table alone ($1 merchant, $2 key).
	storedPayment = `SELECT ` + paymentColumns + ` FROM payments p
		WHERE p.merchant = $1 AND p.idempotency_key = $2 ORDER BY p.id LIMIT 1`
	// storedPaymentAnyMerchant ignores the merchant ($1 key).
	storedPaymentAnyMerchant = `SELECT ` + paymentColumns + ` FROM payments p
		WHERE p.idempotency_key = $1 ORDER BY p.id LIMIT 1`
)

// findPayment runs one of the lookups above.
func findPayment(ctx context.Context, tx pgx.Tx, query string, args ...any) (payment, bool, error) {
	p, err := scanPayment(tx.QueryRow(ctx, query, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return payment{}, false, nil
	}
	if err != nil {
		return payment{}, false, fmt.Errorf("find payment: %w", err)
	}
	return p, true, nil
}

func insertPayment(ctx context.Context, tx pgx.Tx, req createRequest) (payment, error) {
	p, err := scanPayment(tx.QueryRow(ctx, `INSERT INTO payments AS p
		(merchant, idempotency_key, amount, currency, source_id, note, request_fingerprint)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+paymentColumns,
		req.merchant, req.key, req.amount, req.currency, req.sourceID, req.note, req.fingerprint))
	if err != nil {
		return payment{}, fmt.Errorf("insert payment: %w", err)
	}
	return p, nil
}

func insertLedger(ctx context.Context, tx pgx.Tx, p payment) error {
	_, err := tx.Exec(ctx, `INSERT INTO ledger_entries (payment_id, merchant, amount) VALUES ($1, $2, $3)`,
		p.rowID, p.MerchantID, p.AmountMoney.Amount)
	if err != nil {
		return fmt.Errorf("insert ledger entry: %w", err)
	}
	return nil
}

// scanPayment reads a row of paymentColumns. created_at is answered in UTC,
// so that a replay's body is byte for byte the creating call's.
func scanPayment(row pgx.Row) (payment, error) {
	var p payment
	err := row.Scan(&p.rowID, &p.MerchantID, &p.AmountMoney.Amount, &p.AmountMoney.Currency, &p.SourceID, &p.Note,
		&p.Status, &p.CreatedAt, &p.fingerprint)
	p.ID = strconv.FormatInt(p.rowID, 10)
	p.CreatedAt = p.CreatedAt.UTC()
	return p, err
}
