package ticketsvc_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// wantSchema is each layout's columns per table, in order, the columns of
// each table's unique constraints (primary keys included) and those of its
// other indexes, as it is with its unique constraints.
var wantSchema = map[ticketsvc.Layout]map[string]struct{ columns, unique, indexed []string }{
	ticketsvc.LayoutKeys: {
		"tickets": {
			columns: []string{"id", "tenant", "request_key", "subject"},
			unique:  []string{"id", "request_key,tenant"},
		},
		"notification_outbox": {
			columns: []string{"id", "tenant", "request_key", "ticket_id"},
			unique:  []string{"id"},
			indexed: []string{"request_key,tenant", "ticket_id"},
		},
		"idempotency_keys": {
			columns: []string{"tenant", "request_key", "fingerprint", "ticket_id"},
			unique:  []string{"request_key,tenant"},
			indexed: []string{"request_key"},
		},
	},
	ticketsvc.LayoutTagged: {
		"tickets": {
			columns: []string{"id", "tenant", "subject"},
			unique:  []string{"id"},
		},
		"notification_outbox": {
			columns: []string{"id", "ticket_id"},
			unique:  []string{"id"},
			indexed: []string{"ticket_id"},
		},
		"idempotency_keys": {
			columns: []string{"tenant", "request_key", "fingerprint", "ticket_id"},
			unique:  []string{"request_key,tenant"},
			indexed: []string{"request_key"},
		},
	},
}

// unconstrainedModes are the bug modes that need the schema without the
// unique constraints on an action.
var unconstrainedModes = []string{"check-then-insert", "process-mutex"}

// TestMigrateConcurrently runs Migrate from two "processes" (pools) at once,
// several times each, then once more: none may fail, and the schema must be
// the layout's, with its backstop constraints or, for a mode that needs
// them left out, with plain indexes in their place.
func TestMigrateConcurrently(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout ticketsvc.Layout) {
		for _, bug := range []string{"", "check-then-insert"} {
			t.Run(modeTestName(bug), func(t *testing.T) {
				url := newDatabase(t)
				pools := []*pgxpool.Pool{connect(t, url), connect(t, url)}
				var g errgroup.Group
				for i := range 8 {
					g.Go(func() error { return ticketsvc.Migrate(t.Context(), pools[i%2], layout, ticketsvc.ForBug(bug)) })
				}
				if err := g.Wait(); err != nil {
					t.Fatalf("concurrent Migrate: %v", err)
				}
				if err := ticketsvc.Migrate(t.Context(), pools[0], layout, ticketsvc.ForBug(bug)); err != nil {
					t.Fatalf("Migrate on a migrated database: %v", err)
				}
				e := &env{t: t, pool: pools[0]}
				if tk, ob, ks := e.counts(); tk+ob+ks != 0 {
					t.Fatalf("Migrate wrote rows: %d tickets, %d outbox rows, %d keys", tk, ob, ks)
				}
				checkSchemaFor(t, pools[0], layout, slices.Contains(unconstrainedModes, bug))
			})
		}
	})
}

// modeTestName names a mode in a subtest.
func modeTestName(bug string) string {
	if bug == "" {
		return "correct"
	}
	return bug
}

// checkSchema asserts that the database holds exactly layout's tables, with
// their unique constraints.
func checkSchema(t *testing.T, pool *pgxpool.Pool, layout ticketsvc.Layout) {
	t.Helper()
	checkSchemaFor(t, pool, layout, false)
}

// checkSchemaFor asserts that the database holds exactly layout's tables,
// with their unique constraints or, if unconstrained, without them and
// with plain indexes on the same columns instead.
func checkSchemaFor(t *testing.T, pool *pgxpool.Pool, layout ticketsvc.Layout, unconstrained bool) {
	t.Helper()
	for table, want := range wantSchema[layout] {
		if unconstrained {
			if i := slices.Index(want.unique, "request_key,tenant"); i >= 0 {
				want.unique = slices.Delete(slices.Clone(want.unique), i, i+1)
				want.indexed = append(slices.Clone(want.indexed), "request_key,tenant")
				slices.Sort(want.indexed)
			}
		}
		var columns, unique, indexed []string
		err := pool.QueryRow(t.Context(), `SELECT
			(SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
				WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped),
			(SELECT array_agg(cols ORDER BY cols) FROM (
				SELECT string_agg(a.attname::text, ',' ORDER BY a.attname) AS cols
				FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
				WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u')
				GROUP BY c.oid) u),
			(SELECT array_agg(cols ORDER BY cols) FROM (
				SELECT string_agg(a.attname::text, ',' ORDER BY a.attname) AS cols
				FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
				WHERE i.indrelid = $1::regclass AND NOT i.indisunique
				GROUP BY i.indexrelid) x)`, table).Scan(&columns, &unique, &indexed)
		if err != nil {
			t.Fatalf("%s layout: read table %s: %v", layout, table, err)
		}
		if !slices.Equal(columns, want.columns) {
			t.Errorf("%s layout: table %s has columns %q, want %q", layout, table, columns, want.columns)
		}
		if !slices.Equal(unique, want.unique) {
			t.Errorf("%s layout (unconstrained %v): table %s has unique constraints on %q, want %q",
				layout, unconstrained, table, unique, want.unique)
		}
		if !slices.Equal(indexed, want.indexed) {
			t.Errorf("%s layout (unconstrained %v): table %s has other indexes on %q, want %q",
				layout, unconstrained, table, indexed, want.indexed)
		}
	}
}

// TestMigrateLayoutsRace migrates one fresh database with both layouts at
// once: one layout must win whole, and every call for the other must fail.
func TestMigrateLayoutsRace(t *testing.T) {
	url := newDatabase(t)
	pools := []*pgxpool.Pool{connect(t, url), connect(t, url)}
	layouts := ticketsvc.Layouts()
	errs := make([]error, 8)
	var g errgroup.Group
	for i := range errs {
		g.Go(func() error {
			errs[i] = ticketsvc.Migrate(t.Context(), pools[i%2], layouts[i%len(layouts)])
			return nil
		})
	}
	g.Wait()
	var won []ticketsvc.Layout
	for i, err := range errs {
		l := layouts[i%len(layouts)]
		if err == nil && !slices.Contains(won, l) {
			won = append(won, l)
		}
	}
	if len(won) != 1 {
		t.Fatalf("layouts migrated without error: %q, want exactly one; errors %v", won, errs)
	}
	for i, err := range errs {
		if l := layouts[i%len(layouts)]; l != won[0] && err == nil {
			t.Errorf("Migrate %q succeeded after %q won", l, won[0])
		} else if l == won[0] && err != nil {
			t.Errorf("Migrate %q, the winner, failed: %v", l, err)
		}
	}
	checkSchema(t, pools[0], won[0])
}

// TestMigrateRefusesAnotherLayout migrates a database with each layout,
// then with every other: the second must fail, name both layouts and leave
// the first intact.
func TestMigrateRefusesAnotherLayout(t *testing.T) {
	for _, first := range ticketsvc.Layouts() {
		for _, second := range ticketsvc.Layouts() {
			if first == second {
				continue
			}
			t.Run(string(first)+"_then_"+string(second), func(t *testing.T) {
				pool := newPool(t, first)
				err := ticketsvc.Migrate(t.Context(), pool, second)
				if err == nil {
					t.Fatalf("Migrate %q on a %q database succeeded", second, first)
				}
				for _, want := range []string{`"` + string(first) + `"`, `"` + string(second) + `"`, "fresh database"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not mention %s", err, want)
					}
				}
				checkSchema(t, pool, first)
				if err := ticketsvc.Migrate(t.Context(), pool, first); err != nil {
					t.Errorf("Migrate %q again after the refusal: %v", first, err)
				}
			})
		}
	}
}

// An empty layout is the keys layout, in Migrate as in Options.
func TestMigrateEmptyLayoutIsKeys(t *testing.T) {
	pool := newPool(t, "")
	checkSchema(t, pool, ticketsvc.LayoutKeys)
	if err := ticketsvc.Migrate(t.Context(), pool, ticketsvc.LayoutKeys); err != nil {
		t.Fatalf("Migrate keys after Migrate \"\": %v", err)
	}
	e := serve(t, pool, ticketsvc.Options{})
	a := e.mustPost("A", "k", `{"subject":"x"}`)
	if a.status != 201 {
		t.Fatalf("service with empty layout on a keys database: got %d %s, want 201", a.status, a.body)
	}
}

func TestMigrateRejectsUnknownLayout(t *testing.T) {
	pool := connect(t, newDatabase(t))
	err := ticketsvc.Migrate(t.Context(), pool, "no-such-layout")
	if err == nil {
		t.Fatal("Migrate accepted layout \"no-such-layout\"")
	}
	for _, name := range []string{"keys", "tagged", "no-such-layout"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not mention %q", err, name)
		}
	}
	var tables int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("%d tables (err %v) after a refused Migrate; want 0", tables, err)
	}
}

// A table of the service's name that is none of its layouts is not taken
// over: Migrate says how it differs from each layout.
func TestMigrateRefusesForeignTables(t *testing.T) {
	pool := connect(t, newDatabase(t))
	if _, err := pool.Exec(t.Context(), `CREATE TABLE tickets (id int PRIMARY KEY, title text)`); err != nil {
		t.Fatal(err)
	}
	for _, layout := range ticketsvc.Layouts() {
		err := ticketsvc.Migrate(t.Context(), pool, layout)
		if err == nil {
			t.Fatalf("Migrate %q took over a foreign tickets table", layout)
		}
		for _, want := range []string{"tickets", "id, title", "keys", "tagged"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Migrate %q: error %q does not mention %q", layout, err, want)
			}
		}
	}
}

// TestMigrateRefusesOtherConstraints migrates a database for one mode, then
// for another: where the two need the unique constraints differently the
// second must fail, name the mode and what it needs, and leave the schema
// intact; where they agree it must succeed.
func TestMigrateRefusesOtherConstraints(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout ticketsvc.Layout) {
		for _, first := range []string{"", "check-then-insert"} {
			for _, second := range []string{"", "check-then-insert", "process-mutex", "unique-violation-500"} {
				t.Run(modeTestName(first)+"_then_"+modeTestName(second), func(t *testing.T) {
					firstFree := slices.Contains(unconstrainedModes, first)
					secondFree := slices.Contains(unconstrainedModes, second)
					pool := newPool(t, layout, ticketsvc.ForBug(first))
					err := ticketsvc.Migrate(t.Context(), pool, layout, ticketsvc.ForBug(second))
					checkSchemaFor(t, pool, layout, firstFree)
					if firstFree == secondFree {
						if err != nil {
							t.Fatalf("Migrate for %s on a database for %s: %v", modeTestName(second), modeTestName(first), err)
						}
						return
					}
					if err == nil {
						t.Fatalf("Migrate for %s on a database for %s succeeded", modeTestName(second), modeTestName(first))
					}
					mode := "the correct mode"
					needs, holds := "needs it with unique constraints", "holds the \""+string(layout)+"\" layout without unique constraints"
					if second != "" {
						mode = `bug mode "` + second + `"`
					}
					if secondFree {
						needs, holds = "needs it without unique constraints", "holds the \""+string(layout)+"\" layout with unique constraints"
					}
					for _, want := range []string{mode, needs, holds, "fresh database"} {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("error %q does not say %q", err, want)
						}
					}
				})
			}
		}
	})
}

// A database whose tables have some of a layout's unique constraints but
// not all is neither schema: Migrate names the tables on each side.
func TestMigrateRefusesHalfConstrainedTables(t *testing.T) {
	pool := newPool(t, ticketsvc.LayoutKeys)
	if _, err := pool.Exec(t.Context(), `ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey`); err != nil {
		t.Fatal(err)
	}
	for _, bug := range []string{"", "check-then-insert"} {
		err := ticketsvc.Migrate(t.Context(), pool, ticketsvc.LayoutKeys, ticketsvc.ForBug(bug))
		if err == nil {
			t.Fatalf("Migrate for %s accepted half-constrained tables", modeTestName(bug))
		}
		for _, want := range []string{"match no ticketsvc layout", "in tickets but not in idempotency_keys"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Migrate for %s: error %q does not say %q", modeTestName(bug), err, want)
			}
		}
	}
}

func TestMigrateRejectsUnknownBug(t *testing.T) {
	pool := connect(t, newDatabase(t))
	err := ticketsvc.Migrate(t.Context(), pool, ticketsvc.LayoutKeys, ticketsvc.ForBug("no-such-bug"))
	if err == nil {
		t.Fatal("Migrate accepted bug mode \"no-such-bug\"")
	}
	for _, name := range append(ticketsvc.Bugs(), "no-such-bug") {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not mention %q", err, name)
		}
	}
	var tables int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("%d tables (err %v) after a refused Migrate; want 0", tables, err)
	}
}
