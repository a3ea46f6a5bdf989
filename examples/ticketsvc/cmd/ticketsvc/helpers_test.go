package main

import (
	"context"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/jackc/pgx/v5/pgxpool"
)

// connect returns a pool on dbURL, closed at the end of the test.
func connect(t *testing.T, dbURL string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func migrate(t *testing.T, dbURL string, layout ticketsvc.Layout) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := ticketsvc.Migrate(t.Context(), pool, layout); err != nil {
		t.Fatal(err)
	}
}
