package effects

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/draft/calls"
)

// row is one row a call wrote: its table, its transaction and its columns.
type row struct {
	table string
	xmin  string
	cols  map[string]any
}

// Observe makes one create call under tenant ns+"A" and key ns+"k1", finds
// the rows its transaction wrote (the transactions whose rows hold the
// namespace, and every row those transactions wrote, in every table the
// role may read), and drafts the effects: which columns hold the tenant,
// the key and the payload's fields, which rows reference which, and where
// the answer carries the row's ID. It reads only; the call writes one
// action's rows.
func Observe(ctx context.Context, d *draft.Draft, pool *pgxpool.Pool, client *http.Client, ns string) (calls.Answer, error) {
	tables, err := userTables(ctx, pool)
	if err != nil {
		return calls.Answer{}, err
	}
	var xmax uint64
	if err := pool.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&xmax); err != nil {
		return calls.Answer{}, fmt.Errorf("draft: read the database's transaction counter: %w", err)
	}
	tenant, key := ns+"A", ns+"k1"
	a, err := calls.Send(ctx, d, client, calls.ModelRules(d), tenant, key, 0)
	if err != nil {
		return a, err
	}
	if a.Status/100 != 2 {
		return a, fmt.Errorf("draft: the create call was answered %d, not 2xx: %.300s", a.Status, a.Body)
	}
	rows, err := newRows(ctx, pool, tables, xmax)
	if err != nil {
		return a, err
	}
	// The call's transactions are those whose rows hold the namespace.
	xids := map[string]bool{}
	for _, r := range rows {
		for _, v := range r.cols {
			if s, ok := v.(string); ok && strings.HasPrefix(s, ns) {
				xids[r.xmin] = true
			}
		}
	}
	byTable := map[string][]row{}
	var order []string
	for _, r := range rows {
		if xids[r.xmin] {
			if byTable[r.table] == nil {
				order = append(order, r.table)
			}
			byTable[r.table] = append(byTable[r.table], r)
		}
	}
	if len(order) == 0 {
		return a, fmt.Errorf("draft: the create call was answered %d, but no table this role may read gained a row holding its tenant %q or key %q", a.Status, tenant, key)
	}
	fks, err := foreignKeys(ctx, pool)
	if err != nil {
		return a, err
	}
	pks, err := primaryKeys(ctx, pool)
	if err != nil {
		return a, err
	}
	drafter{d}.effects(order, byTable, fks, pks, tenant, key, a)
	return a, nil
}

// userTables lists the ordinary tables outside the system schemas that the
// role may read, as regclass names (schema-qualified off the search path).
func userTables(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	rs, err := pool.Query(ctx, `SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
		AND has_table_privilege(c.oid, 'SELECT') ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("draft: list the tables: %w", err)
	}
	return pgx.CollectRows(rs, pgx.RowTo[string])
}

// newRows reads the rows written since xmax, in one read-only transaction
// (each table read whole: init runs once, not per plan).
func newRows(ctx context.Context, pool *pgxpool.Pool, tables []string, xmax uint64) ([]row, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return nil, fmt.Errorf("draft: read the new rows: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read-only
	var out []row
	for _, t := range tables {
		// xmin is 32 bits; xmax's low 32 bits are the first transaction after the snapshot.
		rs, err := tx.Query(ctx, `SELECT t.xmin::text, row_to_json(t)::text FROM `+t+` t WHERE t.xmin::text::bigint >= $1 LIMIT 1000`, int64(xmax%(1<<32)))
		if err != nil {
			return nil, fmt.Errorf("draft: read the new rows of %s: %w", t, err)
		}
		for rs.Next() {
			var xmin, js string
			if err := rs.Scan(&xmin, &js); err != nil {
				rs.Close()
				return nil, fmt.Errorf("draft: read the new rows of %s: %w", t, err)
			}
			cols := map[string]any{}
			dec := json.NewDecoder(strings.NewReader(js))
			dec.UseNumber()
			if err := dec.Decode(&cols); err != nil {
				rs.Close()
				return nil, fmt.Errorf("draft: a row of %s: %w", t, err)
			}
			out = append(out, row{t, xmin, cols})
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, fmt.Errorf("draft: read the new rows of %s: %w", t, err)
		}
	}
	return out, nil
}

// fk is a single-column foreign key: table.column names target.to.
type fk struct{ table, column, target, to string }

func foreignKeys(ctx context.Context, pool *pgxpool.Pool) ([]fk, error) {
	rs, err := pool.Query(ctx, `SELECT c.conrelid::regclass::text, a.attname::text, c.confrelid::regclass::text, t.attname::text
		FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		JOIN pg_attribute t ON t.attrelid = c.confrelid AND t.attnum = c.confkey[1]
		WHERE c.contype = 'f' AND cardinality(c.conkey) = 1 ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("draft: read the foreign keys: %w", err)
	}
	return pgx.CollectRows(rs, func(r pgx.CollectableRow) (fk, error) {
		var f fk
		return f, r.Scan(&f.table, &f.column, &f.target, &f.to)
	})
}

func primaryKeys(ctx context.Context, pool *pgxpool.Pool) (map[string]string, error) {
	rs, err := pool.Query(ctx, `SELECT i.indrelid::regclass::text, a.attname::text FROM pg_index i
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE i.indisprimary AND i.indnatts = 1`)
	if err != nil {
		return nil, fmt.Errorf("draft: read the primary keys: %w", err)
	}
	out := map[string]string{}
	for rs.Next() {
		var t, c string
		if err := rs.Scan(&t, &c); err != nil {
			return nil, err
		}
		out[t] = c
	}
	return out, rs.Err()
}
