package fault_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault"
)

// Fail ends the session of the request that waits on the stalled table:
// the handler's transaction fails (it answers 500) and leaves nothing,
// and the pool it came from serves the next request as before. A request
// that never writes to the table is not failed, and the report says so.
func TestFailEndsTheWaitingSession(t *testing.T) {
	db := newStallDB(t)
	url := serve(t, keyFirst(db.service)).URL
	stall := fault.Stall{Pool: db.tester, Table: "items", Wait: 2 * time.Second}
	var ex []client.Exchange
	rep, err := stall.Fail(t.Context(), burstOf(t, 1, url, "k1", &ex))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Fired || rep.Blocked != 1 {
		t.Fatalf("report %+v, want fired with one request blocked", rep)
	}
	if ex[0].Err != nil || ex[0].Resp.StatusCode != 500 {
		t.Fatalf("the failed request got %v %v, want 500", ex[0].Resp, ex[0].Err)
	}
	if n := db.count(t, "items", "k1") + db.count(t, "uitems", "k1"); n != 0 {
		t.Errorf("%d rows left by the failed transaction, want 0", n)
	}
	var retry []client.Exchange
	burstOf(t, 1, url, "k1", &retry)(t.Context(), &atomic.Int64{})
	requireAnswered(t, retry)
	if n := db.count(t, "items", "k1"); n != 1 {
		t.Errorf("%d rows after the retry, want 1", n)
	}

	// Already stored: the retry's INSERT ... ON CONFLICT writes no item.
	rep, err = stall.Fail(t.Context(), func(ctx context.Context, answered *atomic.Int64) {
		burstOf(t, 1, url, "k1", &retry)(ctx, answered)
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fired {
		t.Errorf("report %+v for a request that writes nothing to items, want not fired", rep)
	}
	requireAnswered(t, retry)
}

// Fail ends the call's session only: a bystander (another plan's call,
// another client) already waiting behind the same lock keeps its session
// and writes its row once the lock is released.
func TestFailSparesABystander(t *testing.T) {
	db := newStallDB(t)
	url := serve(t, keyFirst(db.service)).URL
	bystander, watcher := openPool(t, db.url), openPool(t, db.url)
	stall := fault.Stall{Pool: db.tester, Table: "items", Wait: 2 * time.Second}
	done := make(chan error, 1)
	waits := func(ctx context.Context) {
		go func() {
			_, err := bystander.Exec(context.WithoutCancel(ctx), `INSERT INTO items VALUES ('bystander')`)
			done <- err
		}()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			var n int
			if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&n); err != nil || n > 0 {
				return
			}
		}
	}
	var ex []client.Exchange
	rep, err := fault.FailAfter(stall, t.Context(), waits, burstOf(t, 1, url, "k1", &ex))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the bystander's statement: %v", err)
	}
	if n := db.count(t, "items", "bystander"); n != 1 {
		t.Errorf("%d bystander rows, want 1", n)
	}
	if !rep.Fired || ex[0].Err != nil || ex[0].Resp.StatusCode != 500 {
		t.Errorf("report %+v, answer %v %v: want the call's own session ended (500)", rep, ex[0].Resp, ex[0].Err)
	}
}
