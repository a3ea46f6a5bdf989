package fault_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/loopback"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// openPool connects to url with room for a burst of 16 plus the stall.
func openPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 20
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// pgtestDatabase is a new empty database for the test.
func pgtestDatabase(t *testing.T) string {
	t.Helper()
	return pgtest.NewDatabase(t, cluster)
}

var (
	serve   = loopback.Serve
	posts   = loopback.Posts
	readAll = loopback.ReadAll
)
