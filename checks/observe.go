package checks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/model"
)

// ErrSchema marks a declared table or column that the database does not have.
var ErrSchema = errors.New("effect tables do not match the contract")

// Row is one effect row, every value read as text.
type Row struct {
	Tenant string
	Key    string
	// KeyNull is true when the key column is NULL (a keyless call's row).
	KeyNull bool
	ID      string
	// Ref is the value of the references column; RefNull when it is NULL.
	Ref     string
	RefNull bool
	Fields  map[string]string
}

// Snapshot is the rows of one namespace, by effect table.
type Snapshot map[string][]Row

// Observer reads effect tables. It only ever reads: every observation is
// one READ ONLY REPEATABLE READ transaction, so it sees one consistent
// moment and could not write if it tried.
type Observer struct {
	pool    *pgxpool.Pool
	effects []Effect
}

// NewObserver returns an observer of the declared effects.
func NewObserver(pool *pgxpool.Pool, effects []Effect) *Observer {
	return &Observer{pool: pool, effects: effects}
}

// Validate checks that every declared table and column exists, and says
// what exists instead when one does not.
func (o *Observer) Validate(ctx context.Context) error {
	for i, e := range o.effects {
		schema, table := splitName(e.Table)
		var cols []string
		rows, err := o.pool.Query(ctx, `SELECT column_name::text FROM information_schema.columns
			WHERE table_schema = coalesce($1, current_schema()) AND table_name = $2 ORDER BY ordinal_position`, schema, table)
		if err == nil {
			cols, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		if err != nil {
			return fmt.Errorf("effects[%d] (%s): reading its columns from information_schema: %w", i, e.Table, err)
		}
		if len(cols) == 0 {
			return fmt.Errorf("%w: effects[%d].table: table %q not found or not readable (tables: %s)", ErrSchema, i, e.Table, o.tables(ctx, schema))
		}
		named := map[string]string{"tenant": e.Tenant, "key": e.Key, "id": e.ID}
		if e.References != nil {
			named["references.column"] = e.References.Column
		}
		for col := range e.Fields {
			named["fields."+col] = col
		}
		for _, field := range sortedKeys(named) {
			col := named[field]
			if col != "" && !slices.Contains(cols, col) {
				return fmt.Errorf("%w: effects[%d].%s: column %q not found in table %q (columns: %s)", ErrSchema, i, field, col, e.Table, strings.Join(cols, ", "))
			}
		}
	}
	return nil
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

// Observe reads every row of every effect table whose tenant or key lies in
// the namespace.
func (o *Observer) Observe(ctx context.Context, ns model.Namespace) (Snapshot, error) {
	tx, err := o.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("observer: starting a read-only transaction: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only: nothing to lose
	snap := Snapshot{}
	for _, e := range o.effects {
		rows, err := readRows(ctx, tx, e, ns)
		if err != nil {
			return nil, fmt.Errorf("observer: reading %s: %w", e.Table, err)
		}
		snap[e.Table] = rows
	}
	return snap, nil
}

func readRows(ctx context.Context, tx pgx.Tx, e Effect, ns model.Namespace) ([]Row, error) {
	text := func(col string) string {
		if col == "" {
			return "NULL"
		}
		return ident(col) + "::text"
	}
	fields := sortedKeys(e.Fields)
	cols := []string{text(e.Tenant), text(e.Key), text(e.ID), "NULL"}
	if e.References != nil {
		cols[3] = text(e.References.Column)
	}
	for _, f := range fields {
		cols = append(cols, text(f))
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE starts_with(%s, $1) OR starts_with(%s, $1)",
		strings.Join(cols, ", "), ident(e.Table), text(e.Tenant), text(e.Key))
	rows, err := tx.Query(ctx, q, string(ns))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	vals := make([]pgtype.Text, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		r := Row{Tenant: vals[0].String, Key: vals[1].String, KeyNull: !vals[1].Valid,
			ID: vals[2].String, Ref: vals[3].String, RefNull: e.References != nil && !vals[3].Valid}
		if len(fields) > 0 {
			r.Fields = make(map[string]string, len(fields))
			for i, f := range fields {
				r.Fields[f] = vals[4+i].String
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func splitName(name string) (*string, string) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema := name[:i]
		return &schema, name[i+1:]
	}
	return nil, name
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
