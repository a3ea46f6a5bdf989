package fault_test

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/testbed/racedb"
)

// sendOne posts one request for key to url and returns its exchange.
func sendOne(t *testing.T, url, key string) client.Exchange {
	t.Helper()
	var ex []client.Exchange
	racedb.Burst(t, 1, url, key, &ex)(t.Context(), new(atomic.Int64))
	return ex[0]
}

// TestErrorAtEachCode: every code db-error deals through the proxy
// fails the call's first write for real: the handler answers 500, its
// transaction leaves nothing, the injection is recorded as delivered, and
// the pool serves the retry, which creates.
func TestErrorAtEachCode(t *testing.T) {
	for _, code := range fault.DBErrorCodes {
		t.Run(code, func(t *testing.T) {
			db := racedb.NewProxied(t, 4)
			url := serve(t, racedb.KeyFirst(db.Service)).URL
			key := "err-" + code
			call := db.Proxy.Tie(key, []byte(key))
			defer call.Untie()
			call.SetAt(fault.ErrorAt(code, 1, pgproxy.Writes))
			ex := sendOne(t, url, key)
			if ex.Err != nil || ex.Resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("the failed call got %v %v, want 500", ex.Resp, ex.Err)
			}
			inj := call.Injected()
			if len(inj) != 1 || inj[0].Code != code || inj[0].Index != 1 {
				t.Errorf("Injected() = %v, want %s at the first statement", inj, code)
			}
			if n := db.Count(t, "items", key) + db.Count(t, "uitems", key); n != 0 {
				t.Errorf("%d rows left by the failed call, want 0", n)
			}
			call.SetAt(nil)
			if ex := sendOne(t, url, key); ex.Err != nil || ex.Resp.StatusCode != http.StatusCreated {
				t.Fatalf("the retry got %v %v, want 201", ex.Resp, ex.Err)
			}
			if n := db.Count(t, "items", key); n != 1 {
				t.Errorf("%d rows after the retry, want 1", n)
			}
		})
	}
}

// TestErrorAtSparesBystanders: db-error through the proxy touches the
// call's own session only. Here it fails the call's write to items (its
// second), while the call's first write holds its key row: a bystander
// waiting behind that lock (another client through the same proxy, and one
// connected to the database directly) and one idle in a transaction of its
// own all keep their sessions and commit. This is issue 30's item 7: the
// table-lock db-error had ended a bystander waiting behind its lock.
func TestErrorAtSparesBystanders(t *testing.T) {
	for _, code := range fault.DBErrorCodes {
		t.Run(code, func(t *testing.T) {
			db := racedb.NewProxied(t, 4)
			url := serve(t, racedb.KeyFirst(db.Service)).URL
			proxied, err := pgxpool.New(t.Context(), db.Service.Config().ConnString())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(proxied.Close)
			ctx := t.Context()

			idle, err := db.Tester.Begin(ctx) // idle in a transaction throughout
			if err != nil {
				t.Fatal(err)
			}
			defer idle.Rollback(context.WithoutCancel(ctx))
			if _, err := idle.Exec(ctx, `INSERT INTO items VALUES ('idle')`); err != nil {
				t.Fatal(err)
			}

			key := "spare-" + code
			waiting := make(chan error, 2)
			call := db.Proxy.Tie(key, []byte(key))
			defer call.Untie()
			deal := fault.ErrorAt(code, 1, func(sql string) bool { return pgproxy.WritesTo(sql, "items") })
			writes := 0
			call.SetAt(func(pt pgproxy.Point) pgproxy.Action {
				if pt.Kind == pgproxy.BeforeStatement && pgproxy.Writes(pt.SQL) {
					if writes++; writes == 2 {
						// The call holds its key row: both bystanders
						// start waiting behind it before the error.
						for _, p := range []*pgxpool.Pool{proxied, db.Tester} {
							go func() { waiting <- waitBehind(context.WithoutCancel(ctx), p) }()
						}
						waitForWaiters(t, db.Tester, 2)
					}
				}
				return deal(pt)
			})
			ex := sendOne(t, url, key)
			if ex.Err != nil || ex.Resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("the failed call got %v %v, want 500", ex.Resp, ex.Err)
			}
			if inj := call.Injected(); len(inj) != 1 || inj[0].Code != code {
				t.Errorf("Injected() = %v, want %s", inj, code)
			}
			for range 2 {
				if err := <-waiting; err != nil {
					t.Errorf("a bystander waiting behind the call's lock: %v", err)
				}
			}
			if err := idle.Commit(ctx); err != nil {
				t.Errorf("the bystander idle in its transaction: %v", err)
			}
			if n := db.Count(t, "items", "idle"); n != 1 {
				t.Errorf("%d rows of the idle bystander, want 1", n)
			}
			if n := db.Count(t, "uitems", key); n != 0 {
				t.Errorf("%d key rows of the failed call, want 0", n)
			}
		})
	}
}

// waitBehind locks uitems in a mode that waits for the call's open write
// to end, then writes a row of its own and commits.
func waitBehind(ctx context.Context, pool *pgxpool.Pool) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE uitems IN SHARE MODE`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO items VALUES ('bystander')`)
		return err
	})
}

// waitForWaiters waits until n sessions wait on a lock.
func waitForWaiters(t *testing.T, pool *pgxpool.Pool, n int) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var waiting int
		if err := pool.QueryRow(context.Background(), `SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted`).Scan(&waiting); err != nil {
			t.Error(err)
			return
		}
		if waiting >= n {
			return
		}
	}
	t.Errorf("%d sessions never waited behind the call's lock", n)
}

// TestDBErrorCodeStable: a call's code is the one its plan names, the
// same whatever its tenant, key or payload, which shrinking renames and
// plainens; a plan that names none gets 57P01.
func TestDBErrorCodeStable(t *testing.T) {
	for _, want := range append([]string{""}, fault.DBErrorCodes...) {
		for i := range 64 {
			c := model.Call{Tenant: fmt.Sprintf("T%d", i%3), Key: fmt.Sprintf("k%d", i), Variant: i % 3, Fault: model.FaultDBError, Point: want}
			if got := fault.DBErrorCode(c); got != cmp.Or(want, "57P01") {
				t.Fatalf("%s got %s, want %s: the plan names its failure", c, got, cmp.Or(want, "57P01"))
			}
		}
		if err := fault.CheckDBErrorCode(want); err != nil {
			t.Errorf("CheckDBErrorCode(%q): %v", want, err)
		}
	}
	if err := fault.CheckDBErrorCode("23505"); err == nil {
		t.Error("CheckDBErrorCode(23505) accepted a failure db-error cannot deal")
	}
}
