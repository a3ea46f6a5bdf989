package fault_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// proxiedDB is a stallDB whose service pool reaches the database through
// a pgproxy: hook is what its Options.At asks (the hook of the calls tied
// at the moment, as the executor sets it per call).
type proxiedDB struct {
	stallDB
	proxy *pgproxy.Proxy
	hook  atomic.Pointer[func(pgproxy.Point) pgproxy.Action]
}

// newProxiedDB opens the service's pool through the proxy with maxConns
// connections (pgx's default on a small machine is 4).
func newProxiedDB(t *testing.T, maxConns int32) *proxiedDB {
	t.Helper()
	db := &proxiedDB{stallDB: newStallDB(t)}
	p, err := pgproxy.Start(pgproxy.Options{
		Server: fmt.Sprintf("127.0.0.1:%d", pgtest.Cluster(t, cluster).Port()),
		At: func(pt pgproxy.Point) pgproxy.Action {
			if h := db.hook.Load(); h != nil {
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
	db.proxy = p
	url, err := p.URL(db.url)
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
	db.service = pool
	return db
}

// barrierBurst runs n same-key requests to url under the barrier, tied to
// the proxy by their key, and returns the report and the exchanges.
func (db *proxiedDB) barrierBurst(t *testing.T, n int, url, key string) (fault.StallReport, []client.Exchange) {
	t.Helper()
	var ex []client.Exchange
	b := fault.Barrier{DB: db.proxy}
	rep, err := b.Run(t.Context(), n, func(ctx context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64) {
		call := db.proxy.Tie(key, []byte(key))
		defer call.Untie()
		db.hook.Store(&at)
		defer db.hook.Store(nil)
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
	db := newProxiedDB(t, 4)
	srv := serve(t, keyFirst(db.service))
	unfired := 0
	for i := range 100 {
		key := fmt.Sprintf("pool4-%d", i)
		rep, ex := db.barrierBurst(t, 16, srv.URL, key)
		requireAnswered(t, ex)
		if !rep.Fired {
			unfired++
			t.Errorf("burst %d: %+v, want fired", i, rep)
		}
		if rep.Blocked < 1 || rep.Blocked > 4 {
			t.Errorf("burst %d: %d held, want 1 to 4 (the pool's connections)", i, rep.Blocked)
		}
		if got := db.count(t, "items", key); got != 1 {
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
			db := newProxiedDB(t, c.pool)
			srv := serve(t, checkThenInsert(db.service))
			for i := range 10 {
				key := fmt.Sprintf("cti-%d", i)
				rep, ex := db.barrierBurst(t, c.n, srv.URL, key)
				requireAnswered(t, ex)
				if !rep.Fired {
					t.Errorf("burst %d: %+v, want fired", i, rep)
				}
				if got := db.count(t, "items", key); got < c.atLeast {
					t.Errorf("burst %d: %d rows for one key, want at least %d: the barrier did not force the race", i, got, c.atLeast)
				}
			}
		})
	}
}

// TestBarrierNotFired: calls that never write leave the barrier unfired
// once Wait has passed, and nothing stays held.
func TestBarrierNotFired(t *testing.T) {
	db := newProxiedDB(t, 4)
	b := fault.Barrier{DB: db.proxy, Wait: 50 * time.Millisecond}
	rep, err := b.Run(t.Context(), 2, func(context.Context, func(pgproxy.Point) pgproxy.Action, *atomic.Int64) {})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fired || rep.Blocked != 0 {
		t.Errorf("%+v, want not fired, none held", rep)
	}
	if held := db.proxy.Held(); held != 0 {
		t.Errorf("%d sessions held after Run", held)
	}
}
