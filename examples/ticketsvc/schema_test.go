package ticketsvc_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// wantSchema is each layout's columns per table, in order, and the columns
// of each table's unique constraints (primary keys included).
var wantSchema = map[ticketsvc.Layout]map[string]struct{ columns, unique []string }{
	ticketsvc.LayoutKeys: {
		"tickets": {
			columns: []string{"id", "tenant", "request_key", "subject"},
			unique:  []string{"id", "request_key,tenant"},
		},
		"notification_outbox": {
			columns: []string{"id", "tenant", "request_key", "ticket_id"},
			unique:  []string{"id"},
		},
		"idempotency_keys": {
			columns: []string{"tenant", "request_key", "fingerprint", "ticket_id"},
			unique:  []string{"request_key,tenant"},
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
		},
		"idempotency_keys": {
			columns: []string{"tenant", "request_key", "fingerprint", "ticket_id"},
			unique:  []string{"request_key,tenant"},
		},
	},
}

// TestMigrateConcurrently runs Migrate from two "processes" (pools) at once,
// several times each, then once more: none may fail, and the schema must be
// the layout's, with its backstop constraints.
func TestMigrateConcurrently(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout ticketsvc.Layout) {
		url := newDatabase(t)
		pools := []*pgxpool.Pool{connect(t, url), connect(t, url)}
		var g errgroup.Group
		for i := range 8 {
			g.Go(func() error { return ticketsvc.Migrate(t.Context(), pools[i%2], layout) })
		}
		if err := g.Wait(); err != nil {
			t.Fatalf("concurrent Migrate: %v", err)
		}
		if err := ticketsvc.Migrate(t.Context(), pools[0], layout); err != nil {
			t.Fatalf("Migrate on a migrated database: %v", err)
		}
		e := &env{t: t, pool: pools[0]}
		if tk, ob, ks := e.counts(); tk+ob+ks != 0 {
			t.Fatalf("Migrate wrote rows: %d tickets, %d outbox rows, %d keys", tk, ob, ks)
		}
		checkSchema(t, pools[0], layout)
	})
}

// checkSchema asserts that the database holds exactly layout's tables.
func checkSchema(t *testing.T, pool *pgxpool.Pool, layout ticketsvc.Layout) {
	t.Helper()
	for table, want := range wantSchema[layout] {
		var columns, unique []string
		err := pool.QueryRow(t.Context(), `SELECT
			(SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
				WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped),
			(SELECT array_agg(cols ORDER BY cols) FROM (
				SELECT string_agg(a.attname::text, ',' ORDER BY a.attname) AS cols
				FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
				WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u')
				GROUP BY c.oid) u)`, table).Scan(&columns, &unique)
		if err != nil {
			t.Fatalf("%s layout: read table %s: %v", layout, table, err)
		}
		if !slices.Equal(columns, want.columns) {
			t.Errorf("%s layout: table %s has columns %q, want %q", layout, table, columns, want.columns)
		}
		if !slices.Equal(unique, want.unique) {
			t.Errorf("%s layout: table %s has unique constraints on %q, want %q", layout, table, unique, want.unique)
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
