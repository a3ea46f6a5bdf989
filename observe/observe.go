package observe

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
	// Tag is the value of the tag column, Join of the join column.
	Tag    string
	Join   string
	Fields map[string]string
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

// DB is the pool the observer reads with.
func (o *Observer) DB() *pgxpool.Pool { return o.pool }

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
func (o *Observer) columns(ctx context.Context, i int, e Effect) ([]string, error) {
	if e.Query != "" {
		rows, err := o.pool.Query(ctx, "SELECT * FROM ("+e.Query+") AS q LIMIT 0", "")
		if err != nil {
			return nil, fmt.Errorf("%w: effects[%d].query (%s): %v", ErrSchema, i, e.Table, err)
		}
		defer rows.Close()
		var cols []string
		for _, f := range rows.FieldDescriptions() {
			cols = append(cols, f.Name)
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

// Observe reads every row of every effect table that belongs to the
// namespace: by a tenant or key with its prefix, by a tag inside it, or by
// pointing at such a row.
func (o *Observer) Observe(ctx context.Context, ns model.Namespace) (Snapshot, error) {
	snap := Snapshot{}
	err := o.readOnly(ctx, func(tx pgx.Tx, byTable map[string]Effect) error {
		for _, e := range o.effects {
			rows, err := readRows(ctx, tx, e, byTable, ns)
			if err != nil {
				return fmt.Errorf("observer: reading %s: %w", e.Table, err)
			}
			snap[e.Table] = rows
		}
		return nil
	})
	return snap, err
}

// readOnly runs read in one READ ONLY REPEATABLE READ transaction, so it
// sees one consistent moment and could not write if it tried. byTable
// finds an effect by its table name.
func (o *Observer) readOnly(ctx context.Context, read func(tx pgx.Tx, byTable map[string]Effect) error) error {
	tx, err := o.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("observer: starting a read-only transaction: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only: nothing to lose
	byTable := map[string]Effect{}
	for _, e := range o.effects {
		byTable[e.Table] = e
	}
	return read(tx, byTable)
}

func text(col string) string {
	if col == "" {
		return "NULL"
	}
	return ident(col) + "::text"
}

// source is what an effect reads from: its table, or its query.
func source(e Effect) string {
	if e.Query != "" {
		return "(" + e.Query + ") AS q"
	}
	return ident(e.Table)
}

// inNamespace is the condition that keeps an effect's own rows.
func inNamespace(e Effect, byTable map[string]Effect) string {
	switch e.Attribution() {
	case ByTag:
		return fmt.Sprintf("strpos(%s, $1) > 0", text(e.Tag))
	case ByJoin:
		ref := byTable[e.Join.Table]
		return fmt.Sprintf("%s IN (SELECT %s FROM %s WHERE %s)", text(e.Join.Column), text(ref.ID), source(ref), inNamespace(ref, byTable))
	default:
		return fmt.Sprintf("starts_with(%s, $1) OR starts_with(%s, $1)", text(e.Tenant), text(e.Key))
	}
}

func readRows(ctx context.Context, tx pgx.Tx, e Effect, byTable map[string]Effect, ns model.Namespace) ([]Row, error) {
	const fixed = 6
	fields := sortedKeys(e.Fields)
	cols := []string{text(e.Tenant), text(e.Key), text(e.ID), "NULL", text(e.Tag), "NULL"}
	if e.References != nil {
		cols[3] = text(e.References.Column)
	}
	if e.Join != nil {
		cols[5] = text(e.Join.Column)
	}
	for _, f := range fields {
		cols = append(cols, text(f))
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(cols, ", "), source(e), inNamespace(e, byTable))
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
			ID: vals[2].String, Ref: vals[3].String, RefNull: e.References != nil && !vals[3].Valid,
			Tag: vals[4].String, Join: vals[5].String}
		if len(fields) > 0 {
			r.Fields = make(map[string]string, len(fields))
			for i, f := range fields {
				r.Fields[f] = vals[fixed+i].String
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
