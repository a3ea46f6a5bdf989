package ticketsvc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// schema is one variant of the tables: a layout, with its unique
// constraints on an action or (for the modes whose mistake they would
// hide) without them. Migrate creates one schema per database, and a
// Service runs only over the schema its mode needs.
type schema struct {
	spec          *layoutSpec
	unconstrained bool
	// pendingKeys lets a key row name no ticket yet (idempotency_keys.
	// ticket_id is nullable): the modes that write the key row first.
	pendingKeys bool
	// leases gives idempotency_keys a lease_expires column: the modes
	// whose claim on a key expires (short-lease).
	leases bool
}

// schemaFor returns the schema a mode needs in a layout.
func schemaFor(layout Layout, bug string) (schema, error) {
	spec, err := specFor(layout)
	if err != nil {
		return schema{}, err
	}
	b, err := behaviorFor(bug)
	if err != nil {
		return schema{}, err
	}
	return schema{spec: spec, unconstrained: b.unconstrained, pendingKeys: b.pendingKeys(), leases: b.leases()}, nil
}

// constraints says whether the schema has its unique constraints, and
// when its key reference is checked.
func (s schema) constraints() string {
	c := "with unique constraints"
	if s.unconstrained {
		c = "without unique constraints"
	}
	if s.pendingKeys {
		c += " and key rows that may name no ticket yet"
	}
	if s.leases {
		c += " and a lease expiry on each key row"
	}
	return c
}

// presentLike describes what the database holds of a schema's layout.
func (s schema) presentLike(present []schema) string {
	for _, p := range present {
		if p.spec.layout == s.spec.layout {
			return p.constraints()
		}
	}
	return "otherwise"
}

// presentTable is what the database holds under one of the service's table
// names.
type presentTable struct {
	columns []string
	// unique are the column lists of its unique indexes (primary key and
	// unique constraints included), each sorted and comma-joined.
	unique []string
	// nullable are its columns that may be NULL.
	nullable []string
}

// presentSchemas returns the schemas that the service's tables in the
// database (those found through the search_path) match, or nil when there
// are none yet. Several schemas match when only tables they share are
// present. Tables that match no schema are an error saying how they differ.
func presentSchemas(ctx context.Context, q querier) ([]schema, error) {
	present, err := readPresentTables(ctx, q)
	if err != nil || len(present) == 0 {
		return nil, err
	}
	return matchSchemas(present)
}

// readPresentTables reads, for each table name any layout uses, the
// columns, unique indexes and nullable columns of the table by that name,
// in one query; names with no table are absent from the map.
func readPresentTables(ctx context.Context, q querier) (map[string]presentTable, error) {
	var names []string
	for _, s := range layoutSpecs {
		for _, t := range s.tables {
			if !slices.Contains(names, t.name) {
				names = append(names, t.name)
			}
		}
	}
	rows, err := q.Query(ctx, `SELECT n.name, array_agg(a.attname::text ORDER BY a.attnum),
			ARRAY(SELECT string_agg(ia.attname::text, ',' ORDER BY ia.attname)
				FROM pg_index i
				JOIN pg_attribute ia ON ia.attrelid = i.indrelid AND ia.attnum = ANY (i.indkey)
				WHERE i.indrelid = to_regclass(n.name) AND i.indisunique
				GROUP BY i.indexrelid),
			coalesce(array_agg(a.attname::text) FILTER (WHERE NOT a.attnotnull), '{}')
		FROM unnest($1::text[]) AS n(name)
		JOIN pg_attribute a ON a.attrelid = to_regclass(n.name) AND a.attnum > 0 AND NOT a.attisdropped
		GROUP BY n.name`, names)
	if err != nil {
		return nil, fmt.Errorf("read the tables %s: %w", strings.Join(names, ", "), err)
	}
	present := map[string]presentTable{}
	var (
		name string
		pt   presentTable
	)
	_, err = pgx.ForEachRow(rows, []any{&name, &pt.columns, &pt.unique, &pt.nullable}, func() error {
		present[name] = pt
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the tables %s: %w", strings.Join(names, ", "), err)
	}
	return present, nil
}

// matchSchemas returns the schemas whose tables the present ones are, or
// an error saying for each layout how they differ: other columns, or
// unique constraints on an action in some tables and not in others.
func matchSchemas(present map[string]presentTable) ([]schema, error) {
	var (
		found []schema
		why   []string
	)
	for i := range layoutSpecs {
		spec := &layoutSpecs[i]
		leases := slices.Contains(present[idempotencyKeys.name].columns, idempotencyKeys.lease)
		if m := spec.columnMismatch(present, leases); m != "" {
			why = append(why, m)
			continue
		}
		with, without := spec.backstops(present)
		pending := slices.Contains(present[idempotencyKeys.name].nullable, idempotencyKeys.pending)
		if len(with) == 0 {
			found = append(found, schema{spec: spec, unconstrained: true, pendingKeys: pending, leases: leases})
		}
		if len(without) == 0 {
			found = append(found, schema{spec: spec, pendingKeys: pending, leases: leases})
		}
		if len(with) > 0 && len(without) > 0 {
			why = append(why, fmt.Sprintf("the unique constraints on an action are in %s but not in %s (the %s layout has them in all, or in none)",
				strings.Join(with, ", "), strings.Join(without, ", "), spec.layout))
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("the database's tables match no ticketsvc layout: %s", strings.Join(why, "; "))
	}
	return found, nil
}

// columnMismatch says how the present tables' columns differ from the
// layout's (with the lease column where leases is set), "" if every
// present table has exactly the layout's columns.
func (s *layoutSpec) columnMismatch(present map[string]presentTable, leases bool) string {
	for _, t := range s.tables {
		got, ok := present[t.name]
		if !ok {
			continue
		}
		want := t.columnNames()
		if leases && t.lease != "" {
			want = append(want, t.lease)
		}
		if !sameSet(got.columns, want) {
			return fmt.Sprintf("table %s has columns (%s), %s has (%s)",
				t.name, strings.Join(got.columns, ", "), s.layout, strings.Join(want, ", "))
		}
	}
	return ""
}

// backstops sorts the present tables that have a backstop in the layout by
// whether they hold it as a unique index.
func (s *layoutSpec) backstops(present map[string]presentTable) (with, without []string) {
	for _, t := range s.tables {
		got, ok := present[t.name]
		if !ok || t.unique == nil {
			continue
		}
		cols := slices.Clone(t.unique)
		slices.Sort(cols)
		if slices.Contains(got.unique, strings.Join(cols, ",")) {
			with = append(with, t.name)
		} else {
			without = append(without, t.name)
		}
	}
	return with, without
}

// layoutsOf returns the distinct layouts of schemas, in order.
func layoutsOf(schemas []schema) []Layout {
	var ls []Layout
	for _, s := range schemas {
		if !slices.Contains(ls, s.spec.layout) {
			ls = append(ls, s.spec.layout)
		}
	}
	return ls
}

// querier is a pool, connection or transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}
