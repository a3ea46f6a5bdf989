package observe

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/model/effect"
)

// Validate checks that every declared table and column exists, and says
// what exists instead when one does not.
func (o *Observer) Validate(ctx context.Context) error {
	for i, e := range o.effects {
		cols, err := o.columns(ctx, i, e)
		if err != nil {
			return err
		}
		named := map[string]string{"tenant": e.Tenant, "key": e.Key, "id": e.ID, "tag": e.Tag}
		if e.References != nil {
			named["references.column"] = e.References.Column
		}
		if e.Join != nil {
			named["join.column"] = e.Join.Column
		}
		for col := range e.Fields {
			named["fields."+col] = col
		}
		what := fmt.Sprintf("table %q", e.Table)
		if e.Query != "" {
			what = fmt.Sprintf("the result of query %q", e.Table)
		}
		for _, field := range sortedKeys(named) {
			col := named[field]
			if col != "" && !slices.Contains(cols, col) {
				return fmt.Errorf("%w: effects[%d].%s: column %q not found in %s (columns: %s)", ErrSchema, i, field, col, what, strings.Join(cols, ", "))
			}
		}
	}
	return nil
}

// columns lists the columns of an effect's table, or of its query's result.
func (o *Observer) columns(ctx context.Context, i int, e effect.Effect) ([]string, error) {
	if e.Query != "" {
		// The user's SQL, even to learn its columns, runs read-only.
		var cols []string
		err := o.readOnly(ctx, func(tx pgx.Tx, _ map[string]effect.Effect) error {
			rows, err := tx.Query(ctx, "SELECT * FROM ("+e.Query+") AS q LIMIT 0", "")
			if err != nil {
				return err
			}
			for _, f := range rows.FieldDescriptions() {
				cols = append(cols, f.Name)
			}
			rows.Close()
			return rows.Err()
		})
		if err != nil {
			return nil, fmt.Errorf("%w: effects[%d].query (%s): %v", ErrSchema, i, e.Table, err)
		}
		return cols, nil
	}
	schema, table := splitName(e.Table)
	rows, err := o.pool.Query(ctx, `SELECT column_name::text FROM information_schema.columns
		WHERE table_schema = coalesce($1, current_schema()) AND table_name = $2 ORDER BY ordinal_position`, schema, table)
	var cols []string
	if err == nil {
		cols, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		return nil, fmt.Errorf("effects[%d] (%s): reading its columns from information_schema: %w", i, e.Table, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%w: effects[%d].table: table %q not found or not readable (tables: %s)", ErrSchema, i, e.Table, o.tables(ctx, schema))
	}
	return cols, nil
}

func (o *Observer) tables(ctx context.Context, schema *string) string {
	rows, err := o.pool.Query(ctx, `SELECT table_name::text FROM information_schema.tables
		WHERE table_schema = coalesce($1, current_schema()) ORDER BY table_name`, schema)
	if err != nil {
		return "unknown: " + err.Error()
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "unknown: " + err.Error()
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func splitName(name string) (*string, string) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema := name[:i]
		return &schema, name[i+1:]
	}
	return nil, name
}
