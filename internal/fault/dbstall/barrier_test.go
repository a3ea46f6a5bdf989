package dbstall_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/testbed/racedb"
)

// barrierBurst runs n same-key requests to url under the barrier, tied to
// the proxy by their key, and returns the report and the exchanges.
func barrierBurst(t *testing.T, db *racedb.Proxied, n int, url, key string) (dbstall.StallReport, []client.Exchange) {
	t.Helper()
	var ex []client.Exchange
	b := dbstall.Barrier{DB: db.Proxy}
	rep, err := b.Run(t.Context(), n, func(ctx context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64) {
		call := db.Proxy.Tie(key, []byte(key))
		defer call.Untie()
		db.Hook.Store(&at)
		defer db.Hook.Store(nil)
		reqs := posts(t, n, func(int) string { return url + "?key=" + key })
		ex = client.Release(ctx, reqs, client.ReleaseOptions{Answered: answered})
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep, ex
}

// TestBarrierPoolSmallerThanBurst: a correct key-first handler with a pool
// of 4 under 100 bursts of 16: the barrier fires every time (the calls
// waiting for a connection count as held once the pool's 4 are), every
// call is answered and one item row is written per key. The table lock
// (Stall) leaves such bursts unfired: it cannot see a request waiting for
// a connection.
func TestBarrierPoolSmallerThanBurst(t *testing.T) {
	db := racedb.NewProxied(t, 4)
	srv := serve(t, racedb.KeyFirst(db.Service))
	unfired := 0
	for i := range 100 {
		key := fmt.Sprintf("pool4-%d", i)
		rep, ex := barrierBurst(t, db, 16, srv.URL, key)
		racedb.RequireAnswered(t, ex)
		if !rep.Fired {
			unfired++
			t.Errorf("burst %d: %+v, want fired", i, rep)
		}
		if rep.Blocked < 1 || rep.Blocked > 4 {
			t.Errorf("burst %d: %d held, want 1 to 4 (the pool's connections)", i, rep.Blocked)
		}
		if got := db.Count(t, "items", key); got != 1 {
			t.Errorf("burst %d: %d item rows, want 1", i, got)
		}
		created := 0
		for _, e := range ex {
			if e.Resp.StatusCode == http.StatusCreated {
				created++
			}
		}
		if created != 1 {
			t.Errorf("burst %d: %d answers 201, want 1", i, created)
		}
	}
	if unfired > 0 {
		t.Errorf("%d of 100 bursts unfired", unfired)
	}
}

// TestBarrierForcesCheckThenInsertRace: every request of a burst has done
// its SELECT before any INSERTs, whether the pool holds the whole burst or
// only 4 of its 16 calls.
func TestBarrierForcesCheckThenInsertRace(t *testing.T) {
	for _, c := range []struct {
		pool       int32
		n, atLeast int
	}{{20, 2, 2}, {20, 8, 8}, {4, 16, 2}} {
		t.Run(fmt.Sprintf("pool %d burst %d", c.pool, c.n), func(t *testing.T) {
			db := racedb.NewProxied(t, c.pool)
			srv := serve(t, racedb.CheckThenInsert(db.Service))
			for i := range 10 {
				key := fmt.Sprintf("cti-%d", i)
				rep, ex := barrierBurst(t, db, c.n, srv.URL, key)
				racedb.RequireAnswered(t, ex)
				if !rep.Fired {
					t.Errorf("burst %d: %+v, want fired", i, rep)
				}
				if got := db.Count(t, "items", key); got < c.atLeast {
					t.Errorf("burst %d: %d rows for one key, want at least %d: the barrier did not force the race", i, got, c.atLeast)
				}
			}
		})
	}
}

// TestBarrierNotFired: calls that never write leave the barrier unfired
// once Wait has passed, and nothing stays held.
func TestBarrierNotFired(t *testing.T) {
	db := racedb.NewProxied(t, 4)
	b := dbstall.Barrier{DB: db.Proxy, Wait: 50 * time.Millisecond}
	rep, err := b.Run(t.Context(), 2, func(context.Context, func(pgproxy.Point) pgproxy.Action, *atomic.Int64) {})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fired || rep.Blocked != 0 {
		t.Errorf("%+v, want not fired, none held", rep)
	}
	if held := db.Proxy.Held(); held != 0 {
		t.Errorf("%d sessions held after Run", held)
	}
}
