package ticketsvc_test

import (
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// TestMigrateConcurrently runs Migrate from two "processes" (pools) at once,
// several times each, then once more: none may fail, and the schema must
// hold the backstop constraint.
func TestMigrateConcurrently(t *testing.T) {
	url := newDatabase(t)
	pools := []*pgxpool.Pool{connect(t, url), connect(t, url)}
	var g errgroup.Group
	for i := range 8 {
		g.Go(func() error { return ticketsvc.Migrate(t.Context(), pools[i%2]) })
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("concurrent Migrate: %v", err)
	}
	if err := ticketsvc.Migrate(t.Context(), pools[0]); err != nil {
		t.Fatalf("Migrate on a migrated database: %v", err)
	}
	e := &env{t: t, pool: pools[0]}
	if tk, ob, ks := e.counts(); tk+ob+ks != 0 {
		t.Fatalf("Migrate wrote rows: %d tickets, %d outbox rows, %d keys", tk, ob, ks)
	}
	var cols []string
	err := pools[0].QueryRow(t.Context(), `SELECT array_agg(a.attname::text ORDER BY a.attname)
		FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
		WHERE c.conrelid = 'tickets'::regclass AND c.contype = 'u'`).Scan(&cols)
	if err != nil || len(cols) != 2 || cols[0] != "request_key" || cols[1] != "tenant" {
		t.Fatalf("unique columns of tickets: %q (err %v); want (tenant, request_key)", cols, err)
	}
}
