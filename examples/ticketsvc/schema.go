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

// A MigrateOption adjusts the schema Migrate creates.
type MigrateOption func(*migration)

// migration is what the options chose.
type migration struct {
	bug string
}

// ForBug makes Migrate create the schema that bug mode (see Bugs; "" is the
// correct mode; several joined by commas need what any of them needs) needs. Most modes need the default one; check-then-insert
// and process-mutex need the tables without their unique constraints on an
// action (plain indexes in their place), which would otherwise stop the
// duplicates these modes exist to show. A Service refuses to run over a
// schema its mode does not need, so migrate with the Service's Bug.
func ForBug(bug string) MigrateOption {
	return func(m *migration) { m.bug = bug }
}

// Migrate creates the tables of layout ("" is LayoutKeys) if they do not
// exist, with their unique constraints unless ForBug says the mode needs
// them left out. It is idempotent, and safe when several processes run it
// at once. It fails, changing nothing, if the database already holds
// another layout, the same layout with or without the constraints the
// mode needs the other way, or tables of these names that match no layout:
// one database, one schema.
func Migrate(ctx context.Context, pool *pgxpool.Pool, layout Layout, opts ...MigrateOption) error {
	var m migration
	for _, o := range opts {
		o(&m)
	}
	want, err := schemaFor(layout, m.bug)
	if err != nil {
		return fmt.Errorf("ticketsvc: migrate: %w", err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockID); err != nil {
			return fmt.Errorf("take migration lock: %w", err)
		}
		present, err := presentSchemas(ctx, tx)
		if err != nil {
			return err
		}
		if present != nil && !slices.Contains(present, want) {
			if layouts := layoutsOf(present); !slices.Contains(layouts, want.spec.layout) {
				return fmt.Errorf("the database already holds the %s layout, not %q: one database holds one layout; "+
					"migrate a fresh database for %q", layoutList(layouts), want.spec.layout, want.spec.layout)
			}
			return fmt.Errorf("the database holds the %q layout %s, but %s needs it %s: one database holds one schema; "+
				"migrate a fresh database for %s", want.spec.layout, want.other().constraints(),
				modeName(m.bug), want.constraints(), modeName(m.bug))
		}
		for _, t := range want.spec.tables {
			for _, stmt := range t.ddl(want.unconstrained) {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("%s: %w", firstLine(stmt), err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("ticketsvc: migrate %q layout %s: %w", want.spec.layout, want.constraints(), err)
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
