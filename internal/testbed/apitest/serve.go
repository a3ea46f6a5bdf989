package apitest

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// Database makes a new database of cluster, runs schema in it and
// returns a pool over it (the service's) and its URL.
func Database(t *testing.T, cluster *pgtemp.Cluster, schema string) (*pgxpool.Pool, string) {
	t.Helper()
	url := pgtest.NewDatabase(t, cluster)
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	// A connection for every call of the largest burst (16), as a service
	// sized for its traffic has: a call waiting for a connection is one
	// the db-stall nemesis cannot see waiting.
	pc.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(t.Context(), pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return pool, url
}

// Serve serves h on a loopback port until the test ends and returns its
// base URL (http://127.0.0.1:port).
func Serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return "http://" + ln.Addr().String()
}
