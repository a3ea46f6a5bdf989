// Package racedb is what the tests of the stalls and of the faults done
// to a call's database work share: a database with two effect tables
// (items, with no constraint, and uitems, whose key is unique), the
// handlers of a service that race on them (check-then-insert, the
// correct insert-on-conflict and key-first), the service's pool through
// a PostgreSQL proxy (package pgproxy) with a settable hook, and bursts
// of same-key calls against them. Each database is made on the test
// binary's cluster: its TestMain must be pgtest.Main.
package racedb

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/testbed/loopback"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// OpenPool connects to url with room for a burst of 16 plus the stall.
func OpenPool(t *testing.T, url string) *pgxpool.Pool {
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

// Exec runs sql on pool, failing the test if it fails.
func Exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// DB is a database with two effect tables: items, with no constraint
// at all, and uitems, whose key is unique. Tester is the tester's pool,
// Service the one the test handlers use.
type DB struct {
	URL             string
	Tester, Service *pgxpool.Pool
}

// New is a new database with both tables, for the test.
func New(t *testing.T) DB {
	t.Helper()
	url := pgtest.NewDatabase(t, nil)
	db := DB{URL: url, Tester: OpenPool(t, url), Service: OpenPool(t, url)}
	Exec(t, db.Tester, `CREATE TABLE items (key text NOT NULL)`)
	Exec(t, db.Tester, `CREATE TABLE uitems (key text PRIMARY KEY)`)
	return db
}

// Count counts the rows of table with key.
func (db DB) Count(t *testing.T, table, key string) int {
	t.Helper()
	var n int
	if err := db.Tester.QueryRow(context.Background(), `SELECT count(*) FROM `+table+` WHERE key = $1`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// CheckThenInsert is the classic bug: look for the key, insert if absent,
// with nothing stopping two requests from both seeing it absent.
func CheckThenInsert(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loopback.ReadAll(r.Body)
		key := r.URL.Query().Get("key")
		var n int
		if err := pool.QueryRow(r.Context(), `SELECT count(*) FROM items WHERE key = $1`, key).Scan(&n); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if n > 0 {
			w.WriteHeader(http.StatusOK)
			return
		}
		if _, err := pool.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, key); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

// InsertOnConflict is the correct version: the unique key decides.
func InsertOnConflict(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loopback.ReadAll(r.Body)
		tag, err := pool.Exec(r.Context(), `INSERT INTO uitems (key) VALUES ($1) ON CONFLICT DO NOTHING`, r.URL.Query().Get("key"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if tag.RowsAffected() == 0 {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

// KeyFirst is the usual correct design: claim the key first (INSERT ... ON
// CONFLICT DO NOTHING into uitems), then write the effect row (items), in
// one transaction. A duplicate waits on the first request's key row, not
// on the effect table.
func KeyFirst(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loopback.ReadAll(r.Body)
		key := r.URL.Query().Get("key")
		status := http.StatusOK
		err := pgx.BeginFunc(r.Context(), pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(r.Context(), `INSERT INTO uitems (key) VALUES ($1) ON CONFLICT DO NOTHING`, key)
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
			status = http.StatusCreated
			_, err = tx.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, key)
			return err
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(status)
	}
}

// Burst is a burst function that sends n same-key requests to url.
func Burst(t *testing.T, n int, url, key string, ex *[]client.Exchange) func(context.Context, *atomic.Int64) {
	return func(ctx context.Context, answered *atomic.Int64) {
		reqs := loopback.Posts(t, n, func(int) string { return url + "?key=" + key })
		*ex = client.Release(ctx, reqs, client.ReleaseOptions{Answered: answered})
	}
}

// RequireAnswered fails the test unless every exchange got a 2xx answer.
func RequireAnswered(t *testing.T, ex []client.Exchange) {
	t.Helper()
	for i, e := range ex {
		if e.Err != nil {
			t.Fatalf("exchange %d: %v", i, e.Err)
		}
		if e.Resp.StatusCode/100 != 2 {
			t.Fatalf("exchange %d: %d %s", i, e.Resp.StatusCode, e.Body)
		}
	}
}

// Proxied is a DB whose service pool reaches the database through
// a pgproxy: Hook is what its Options.At asks (the hook of the calls tied
// at the moment, as the executor sets it per call).
type Proxied struct {
	DB
	Proxy *pgproxy.Proxy
	Hook  atomic.Pointer[func(pgproxy.Point) pgproxy.Action]
}

// NewProxied opens the service's pool through the proxy with maxConns
// connections (pgx's default on a small machine is 4).
func NewProxied(t *testing.T, maxConns int32) *Proxied {
	t.Helper()
	db := &Proxied{DB: New(t)}
	p, err := pgproxy.Start(pgproxy.Options{
		Server: fmt.Sprintf("127.0.0.1:%d", pgtest.Cluster(t, nil).Port()),
		At: func(pt pgproxy.Point) pgproxy.Action {
			if h := db.Hook.Load(); h != nil {
				return (*h)(pt)
			}
			return pgproxy.Continue
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	db.Proxy = p
	url, err := p.URL(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close) // before the proxy's Close (cleanups run last first)
	db.Service = pool
	return db
}
