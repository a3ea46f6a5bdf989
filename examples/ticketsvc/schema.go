package ticketsvc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrateLockID is the advisory lock that serialises concurrent Migrate
// calls: CREATE ... IF NOT EXISTS alone can still fail when two sessions
// create the same table at once (a unique violation in the catalog).
const migrateLockID int64 = 0x7469636b65747376 // "ticketsv"

// schema is the DDL of the default layout. tickets and notification_outbox
// carry tenant and request_key so idemstress can attribute every row to its
// action; idempotency_keys is the service's own record of each key.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS tickets (
		id          bigserial PRIMARY KEY,
		tenant      text NOT NULL,
		request_key text NOT NULL,
		subject     text NOT NULL,
		CONSTRAINT tickets_tenant_request_key_key UNIQUE (tenant, request_key)
	)`,
	`CREATE TABLE IF NOT EXISTS notification_outbox (
		id          bigserial PRIMARY KEY,
		tenant      text NOT NULL,
		request_key text NOT NULL,
		ticket_id   bigint NOT NULL REFERENCES tickets (id)
	)`,
	`CREATE INDEX IF NOT EXISTS notification_outbox_tenant_request_key_idx
		ON notification_outbox (tenant, request_key)`,
	`CREATE INDEX IF NOT EXISTS notification_outbox_ticket_id_idx
		ON notification_outbox (ticket_id)`,
	`CREATE TABLE IF NOT EXISTS idempotency_keys (
		tenant      text NOT NULL,
		request_key text NOT NULL,
		fingerprint text NOT NULL,
		ticket_id   bigint NOT NULL REFERENCES tickets (id),
		PRIMARY KEY (tenant, request_key)
	)`,
	`CREATE INDEX IF NOT EXISTS idempotency_keys_request_key_idx
		ON idempotency_keys (request_key)`,
}

// Migrate creates the service's tables if they do not exist. It is
// idempotent, and safe when several processes run it at once.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockID); err != nil {
			return fmt.Errorf("take migration lock: %w", err)
		}
		for _, stmt := range schema {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", firstLine(stmt), err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("ticketsvc: migrate: %w", err)
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
