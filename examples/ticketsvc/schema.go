package ticketsvc

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrateLockID is the advisory lock that serialises concurrent Migrate
// calls: CREATE ... IF NOT EXISTS alone can still fail when two sessions
// create the same table at once (a unique violation in the catalog), and two
// layouts must not be created side by side.
const migrateLockID int64 = 0x7469636b65747376 // "ticketsv"

// Migrate creates the tables of layout ("" is LayoutKeys) if they do not
// exist. It is idempotent, and safe when several processes run it at once.
// It fails, changing nothing, if the database already holds another layout
// or tables of these names that match no layout: one database, one layout.
func Migrate(ctx context.Context, pool *pgxpool.Pool, layout Layout) error {
	spec, err := specFor(layout)
	if err != nil {
		return fmt.Errorf("ticketsvc: migrate: %w", err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockID); err != nil {
			return fmt.Errorf("take migration lock: %w", err)
		}
		present, err := presentLayouts(ctx, tx)
		if err != nil {
			return err
		}
		if present != nil && !slices.Contains(present, spec.layout) {
			return fmt.Errorf("the database already holds the %s layout, not %q: one database holds one layout; "+
				"migrate a fresh database for %q", layoutList(present), spec.layout, spec.layout)
		}
		for _, t := range spec.tables {
			for _, stmt := range t.ddl() {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("%s: %w", firstLine(stmt), err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("ticketsvc: migrate %q layout: %w", spec.layout, err)
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
