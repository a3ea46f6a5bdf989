package dbstall_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/testbed/racedb"
)

// Fail ends the session of the request that waits on the stalled table:
// the handler's transaction fails (it answers 500) and leaves nothing,
// and the pool it came from serves the next request as before. A request
// that never writes to the table is not failed, and the report says so.
func TestFailEndsTheWaitingSession(t *testing.T) {
	db := racedb.New(t)
	url := serve(t, racedb.KeyFirst(db.Service)).URL
	stall := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: 2 * time.Second}
	var ex []client.Exchange
	rep, err := stall.Fail(t.Context(), racedb.Burst(t, 1, url, "k1", &ex))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Fired || rep.Blocked != 1 {
		t.Fatalf("report %+v, want fired with one request blocked", rep)
	}
	if ex[0].Err != nil || ex[0].Resp.StatusCode != 500 {
		t.Fatalf("the failed request got %v %v, want 500", ex[0].Resp, ex[0].Err)
	}
	if n := db.Count(t, "items", "k1") + db.Count(t, "uitems", "k1"); n != 0 {
		t.Errorf("%d rows left by the failed transaction, want 0", n)
	}
	var retry []client.Exchange
	racedb.Burst(t, 1, url, "k1", &retry)(t.Context(), &atomic.Int64{})
	racedb.RequireAnswered(t, retry)
	if n := db.Count(t, "items", "k1"); n != 1 {
		t.Errorf("%d rows after the retry, want 1", n)
	}

	// Already stored: the retry's INSERT ... ON CONFLICT writes no item.
	rep, err = stall.Fail(t.Context(), func(ctx context.Context, answered *atomic.Int64) {
		racedb.Burst(t, 1, url, "k1", &retry)(ctx, answered)
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fired {
		t.Errorf("report %+v for a request that writes nothing to items, want not fired", rep)
	}
	racedb.RequireAnswered(t, retry)
}

// Fail ends the call's session only: a bystander (another plan's call,
// another client) already waiting behind the same lock keeps its session
// and writes its row once the lock is released.
func TestFailSparesABystander(t *testing.T) {
	db := racedb.New(t)
	url := serve(t, racedb.KeyFirst(db.Service)).URL
	bystander, watcher := racedb.OpenPool(t, db.URL), racedb.OpenPool(t, db.URL)
	stall := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: 2 * time.Second}
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
	rep, err := dbstall.FailAfter(stall, t.Context(), waits, racedb.Burst(t, 1, url, "k1", &ex))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the bystander's statement: %v", err)
	}
	if n := db.Count(t, "items", "bystander"); n != 1 {
		t.Errorf("%d bystander rows, want 1", n)
	}
	if !rep.Fired || ex[0].Err != nil || ex[0].Resp.StatusCode != 500 {
		t.Errorf("report %+v, answer %v %v: want the call's own session ended (500)", rep, ex[0].Resp, ex[0].Err)
	}
}

// keyFirstPausing is racedb.KeyFirst that, once its key row is written, calls
// between before it writes the item (the test starts a bystander there).
func keyFirstPausing(pool *pgxpool.Pool, between func()) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		key := r.URL.Query().Get("key")
		err := pgx.BeginFunc(r.Context(), pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(r.Context(), `INSERT INTO uitems (key) VALUES ($1) ON CONFLICT DO NOTHING`, key); err != nil {
				return err
			}
			between()
			_, err := tx.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, key)
			return err
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

// Fail takes only a session waiting on the stalled table itself for the
// call's: a bystander that starts waiting after the call was sent, behind
// the call's own key row, is neither ended nor a reason to leave the fault
// unfired, and commits once the call's transaction is gone.
func TestFailSparesABystanderBehindTheCall(t *testing.T) {
	db := racedb.New(t)
	bystander, watcher := racedb.OpenPool(t, db.URL), racedb.OpenPool(t, db.URL)
	done := make(chan error, 1)
	between := func() {
		go func() {
			done <- pgx.BeginFunc(context.Background(), bystander, func(tx pgx.Tx) error {
				if _, err := tx.Exec(context.Background(), `LOCK TABLE uitems IN SHARE MODE`); err != nil {
					return err
				}
				_, err := tx.Exec(context.Background(), `INSERT INTO items VALUES ('bystander')`)
				return err
			})
		}()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			var n int
			if err := watcher.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&n); err != nil || n > 0 {
				return
			}
		}
	}
	url := serve(t, keyFirstPausing(db.Service, between)).URL
	stall := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: 2 * time.Second}
	var ex []client.Exchange
	rep, err := stall.Fail(t.Context(), racedb.Burst(t, 1, url, "k1", &ex))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the bystander behind the call's key row: %v", err)
	}
	if !rep.Fired || ex[0].Err != nil || ex[0].Resp.StatusCode != 500 {
		t.Errorf("report %+v, answer %v %v: want the call's own session ended (500)", rep, ex[0].Resp, ex[0].Err)
	}
	if n := db.Count(t, "items", "bystander"); n != 1 {
		t.Errorf("%d bystander rows, want 1", n)
	}
}
