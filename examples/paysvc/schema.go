package paysvc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrateLockID is the advisory lock that serialises concurrent Migrate
// calls: CREATE ... IF NOT EXISTS alone can still fail when two sessions
// create the same table at once (a unique violation in the catalog).
const migrateLockID int64 = 0x7061797376636d67 // "paysvcmg"

// ddl is the schema, the same in every mode. The one constraint that makes
// a key name one payment is idempotency_keys' primary key; payments has a
// plain index on the key, so that racy-insert, which goes around the key
// table, can show the duplicates its mistake lets through.
var ddl = []string{
	`CREATE TABLE IF NOT EXISTS payments (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	merchant text NOT NULL,
	idempotency_key text NOT NULL,
	amount bigint NOT NULL CHECK (amount > 0),
	currency text NOT NULL,
	source_id text NOT NULL,
	note text NOT NULL DEFAULT '',
	status text NOT NULL DEFAULT 'COMPLETED',
	request_fingerprint text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
)`,
	`CREATE INDEX IF NOT EXISTS payments_merchant_key ON payments (merchant, idempotency_key)`,
	`CREATE TABLE IF NOT EXISTS ledger_entries (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	payment_id bigint NOT NULL REFERENCES payments (id),
	merchant text NOT NULL,
	amount bigint NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS ledger_entries_payment ON ledger_entries (payment_id)`,
	`CREATE TABLE IF NOT EXISTS idempotency_keys (
	merchant text NOT NULL,
	idempotency_key text NOT NULL,
	payment_id bigint REFERENCES payments (id) DEFERRABLE INITIALLY DEFERRED,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (merchant, idempotency_key)
)`,
	`CREATE INDEX IF NOT EXISTS idempotency_keys_key ON idempotency_keys (idempotency_key)`,
}

// Migrate creates the tables if they do not exist. It is idempotent, safe
// when several processes run it at once, and the same for every mode.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockID); err != nil {
			return fmt.Errorf("take migration lock: %w", err)
		}
		for _, stmt := range ddl {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", firstLine(stmt), err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("paysvc: migrate: %w", err)
	}
	return nil
}

// firstLine names a DDL statement in an error without dumping all of it.
func firstLine(stmt string) string {
	for i, r := range stmt {
		if r == '\n' {
			return stmt[:i]
		}
	}
	return stmt
}
