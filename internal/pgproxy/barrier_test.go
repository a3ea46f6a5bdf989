package pgproxy_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

// TestHoldAsBarrier: Hold is the building block of a statement barrier:
// each call of a burst is held at its first statement until every call has
// reached it, then all go on; Open counts the sessions the pool has open,
// which the barrier compares with the number held.
func TestHoldAsBarrier(t *testing.T) {
	const calls = 4
	var (
		mu      sync.Mutex
		held    int
		all     time.Time // when the last call reached the barrier
		release = make(chan struct{})
	)
	f := newFixture(t, func(pt pgproxy.Point) pgproxy.Action {
		if pt.Kind != pgproxy.BeforeStatement || pt.Index != 1 {
			return pgproxy.Continue
		}
		mu.Lock()
		defer mu.Unlock()
		if held++; held == calls {
			all = time.Now()
			close(release)
		}
		return pgproxy.Hold(release)
	})
	ctx := context.Background()
	mustExec(t, connect(t, f.url), "CREATE TABLE t (k text)")
	pool, err := pgxpool.New(ctx, f.url+"&pool_max_conns=4")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	var wg sync.WaitGroup
	finished := make([]time.Time, calls)
	for i := range calls {
		key := fmt.Sprintf("key-%d", i)
		call := f.proxy.Tie("A/"+key, []byte(key))
		wg.Go(func() {
			defer call.Untie()
			if i == calls-1 {
				time.Sleep(200 * time.Millisecond) // the last call comes late
			}
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, "INSERT INTO t VALUES ($1)", key)
				return err
			})
			if err != nil {
				t.Error(key, err)
			}
			finished[i] = time.Now()
		})
	}
	wg.Wait()
	for i, at := range finished {
		if at.Before(all) {
			t.Errorf("call %d finished before the last call reached the barrier", i)
		}
	}
	if n := count(t, f.direct, "t"); n != calls {
		t.Errorf("%d rows, want %d", n, calls)
	}
	// The pool's 4 connections and count's, which may still be closing.
	if open := f.proxy.Open(); open < calls || open > calls+2 {
		t.Errorf("Open() = %d, want the pool's %d (and the test's own)", open, calls)
	}
	if peak := f.proxy.Peak(); peak < calls || peak > calls+2 {
		t.Errorf("Peak() = %d, want the pool's %d (and the test's own)", peak, calls)
	}
}
