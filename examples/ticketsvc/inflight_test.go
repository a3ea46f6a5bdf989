package ticketsvc_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/jackc/pgx/v5"
)

// TestInFlight makes a call deterministically slow: a test transaction locks
// idempotency_keys against writes, so the first call blocks on its last
// insert while holding the action's lock. A retry then must answer 409 at
// once, without writing; after the first call commits, a retry replays it.
func TestInFlight(t *testing.T) { forEachLayout(t, testInFlight) }

func testInFlight(t *testing.T, layout ticketsvc.Layout) {
	e := newEnv(t, layout, "")
	ctx := t.Context()
	stall := lockTable(t, e.pool, "idempotency_keys")
	defer stall.Rollback(ctx)

	type result struct {
		a   answer
		err error
	}
	firstDone := make(chan result, 1)
	go func() {
		a, err := e.post(ctx, "A", "k", `{"subject":"x"}`)
		firstDone <- result{a, err}
	}()
	waitForLockWaiter(t, stall)

	for _, body := range []string{`{"subject":"x"}`, `{"subject":"y"}`} {
		if a := e.mustPost("A", "k", body); a.status != http.StatusConflict {
			t.Fatalf("retry %s while the first call is in flight: got %d %s, want 409", body, a.status, a.body)
		}
	}
	if err := stall.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	first := <-firstDone
	if first.err != nil || first.a.status != http.StatusCreated {
		t.Fatalf("first call: %+v, %v; want 201", first.a, first.err)
	}
	if a := e.mustPost("A", "k", `{"subject":"x"}`); a.status != http.StatusOK || a.id != first.a.id {
		t.Fatalf("retry after the first call: got %d id %d, want 200 id %d", a.status, a.id, first.a.id)
	}
	checkOneEffect(t, "after the in-flight retries", e.effectsOf("A", "k"), first.a.id, "x")
}

// waitForLockWaiter waits until some session waits for a lock on
// idempotency_keys.
func waitForLockWaiter(t *testing.T, tx pgx.Tx) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting bool
		err := tx.QueryRow(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE locktype = 'relation' AND NOT granted AND relation = 'idempotency_keys'::regclass
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no call blocked on idempotency_keys within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
