package dbstall_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/testbed/racedb"
)

// testLease is the lease of leaseTakeover's claims.
const testLease = 100 * time.Millisecond

// leaseTakeover claims its key in a committed transaction of its own with
// an expiry (now + testLease), then writes its item: a request that finds
// the claim expired takes it over and writes the item again, the bug
// class the slow-original nemesis exists for.
func leaseTakeover(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		key := r.URL.Query().Get("key")
		tag, err := pool.Exec(r.Context(), `INSERT INTO claims (key, expires) VALUES ($1, now() + $2::interval)
			ON CONFLICT (key) DO UPDATE SET expires = excluded.expires WHERE claims.expires < now()`, key, testLease.String())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if tag.RowsAffected() == 0 {
			w.WriteHeader(http.StatusConflict)
			return
		}
		if _, err := pool.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, key); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

// send returns a call function that sends one request for key to url and
// keeps what it got.
func send(t *testing.T, url, key string, ex *[]client.Exchange) func(context.Context, *atomic.Int64) {
	return racedb.Burst(t, 1, url, key, ex)
}

// Overrun holds the original past the lease and sends the retry: a
// service whose expired claim is taken over writes the item twice; a
// key-first one makes the retry wait behind the original and writes it
// once. Both fire. A request that never writes to the table is not held,
// and no retry is sent.
func TestOverrunHoldsTheOriginalPastTheLease(t *testing.T) {
	db := racedb.New(t)
	racedb.Exec(t, db.Tester, `CREATE TABLE claims (key text PRIMARY KEY, expires timestamptz NOT NULL)`)
	stall := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: 2 * time.Second}
	hold := testLease + 30*time.Millisecond

	buggy := serve(t, leaseTakeover(db.Service)).URL
	var orig, retry []client.Exchange
	rep, err := stall.Overrun(t.Context(), hold, send(t, buggy, "k1", &orig), send(t, buggy, "k1", &retry))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Fired || !rep.Held || !rep.Retried || rep.Blocked != 2 {
		t.Fatalf("report %+v, want fired, both requests held", rep)
	}
	racedb.RequireAnswered(t, orig)
	racedb.RequireAnswered(t, retry)
	if n := db.Count(t, "items", "k1"); n != 2 {
		t.Errorf("%d items after the takeover, want 2", n)
	}

	// Held for less than the lease, the same service answers the retry
	// in flight: the nemesis is what makes the takeover happen.
	rep, err = stall.Overrun(t.Context(), testLease/4, send(t, buggy, "k2", &orig), send(t, buggy, "k2", &retry))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Fired || retry[0].Err != nil || retry[0].Resp.StatusCode != http.StatusConflict {
		t.Fatalf("report %+v, retry %v %v; want fired, the retry answered 409", rep, retry[0].Resp, retry[0].Err)
	}
	if n := db.Count(t, "items", "k2"); n != 1 {
		t.Errorf("%d items with the claim still held, want 1", n)
	}

	correct := serve(t, racedb.KeyFirst(db.Service)).URL
	rep, err = stall.Overrun(t.Context(), hold, send(t, correct, "k3", &orig), send(t, correct, "k3", &retry))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Fired || rep.Blocked != 2 {
		t.Fatalf("report %+v, want fired with the retry waiting behind the original", rep)
	}
	racedb.RequireAnswered(t, orig)
	racedb.RequireAnswered(t, retry)
	if n := db.Count(t, "items", "k3"); n != 1 {
		t.Errorf("%d items from a key-first service, want 1", n)
	}

	// Stored already: the original writes no item, so it is not held.
	retry = nil
	rep, err = stall.Overrun(t.Context(), hold, send(t, correct, "k3", &orig), send(t, correct, "k3", &retry))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fired || rep.Held || rep.Retried || retry != nil {
		t.Errorf("report %+v for an original that writes nothing to items, want not held and no retry", rep)
	}
}
