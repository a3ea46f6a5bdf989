package fault_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault"
)

// stallDB is a database with two effect tables: items, with no constraint
// at all, and uitems, whose key is unique. tester is the tester's pool,
// service the one the test handlers use.
type stallDB struct {
	url             string
	tester, service *pgxpool.Pool
}

func newStallDB(t *testing.T) stallDB {
	t.Helper()
	url := pgtestDatabase(t)
	db := stallDB{url: url, tester: openPool(t, url), service: openPool(t, url)}
	exec(t, db.tester, `CREATE TABLE items (key text NOT NULL)`)
	exec(t, db.tester, `CREATE TABLE uitems (key text PRIMARY KEY)`)
	return db
}

func (db stallDB) count(t *testing.T, table, key string) int {
	t.Helper()
	var n int
	if err := db.tester.QueryRow(context.Background(), `SELECT count(*) FROM `+table+` WHERE key = $1`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkThenInsert is the classic bug: look for the key, insert if absent,
// with nothing stopping two requests from both seeing it absent.
func checkThenInsert(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
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

// insertOnConflict is the correct version: the unique key decides.
func insertOnConflict(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
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

// keyFirst is the usual correct design: claim the key first (INSERT ... ON
// CONFLICT DO NOTHING into uitems), then write the effect row (items), in
// one transaction. A duplicate waits on the first request's key row, not
// on the effect table.
func keyFirst(pool *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
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

// burstOf returns a burst function that sends n same-key requests to url.
func burstOf(t *testing.T, n int, url, key string, ex *[]client.Exchange) func(context.Context, *atomic.Int64) {
	return func(ctx context.Context, answered *atomic.Int64) {
		reqs := posts(t, n, func(int) string { return url + "?key=" + key })
		*ex = client.Release(ctx, reqs, client.ReleaseOptions{Answered: answered})
	}
}

func requireAnswered(t *testing.T, ex []client.Exchange) {
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

// TestStallForcesCheckThenInsertRace: under the stall both requests of a
// burst do their SELECT before either INSERTs, every time.
func TestStallForcesCheckThenInsertRace(t *testing.T) {
	db := newStallDB(t)
	srv := serve(t, checkThenInsert(db.service))

	// Without the stall the race is up to the scheduler; shown, not judged.
	raced := 0
	for i := range 10 {
		key := fmt.Sprintf("free-%d", i)
		var ex []client.Exchange
		burstOf(t, 2, srv.URL, key, &ex)(t.Context(), new(atomic.Int64))
		requireAnswered(t, ex)
		if db.count(t, "items", key) > 1 {
			raced++
		}
	}
	t.Logf("without the stall, %d of 10 bursts raced", raced)

	for _, table := range []string{"items", "public.items"} {
		stall := fault.Stall{Pool: db.tester, Table: table}
		for i := range 10 {
			key := fmt.Sprintf("%s-%d", table, i)
			var ex []client.Exchange
			rep, err := stall.Run(t.Context(), 2, burstOf(t, 2, srv.URL, key, &ex))
			if err != nil {
				t.Fatal(err)
			}
			requireAnswered(t, ex)
			if !rep.Fired || rep.Blocked != 2 {
				t.Errorf("try %d on %s: %+v, want fired with 2 blocked", i, table, rep)
			}
			if got := db.count(t, "items", key); got != 2 {
				t.Errorf("try %d on %s: %d rows for one key, want 2: the stall did not force the race", i, table, got)
			}
		}
	}
}

// TestStallKeepsCorrectHandlerCorrect: the stall forces the same overlap
// on a handler that is right, which still writes one row.
func TestStallKeepsCorrectHandlerCorrect(t *testing.T) {
	db := newStallDB(t)
	srv := serve(t, insertOnConflict(db.service))
	stall := fault.Stall{Pool: db.tester, Table: "uitems"}
	for i := range 5 {
		key := fmt.Sprintf("k%d", i)
		var ex []client.Exchange
		rep, err := stall.Run(t.Context(), 2, burstOf(t, 2, srv.URL, key, &ex))
		if err != nil {
			t.Fatal(err)
		}
		requireAnswered(t, ex)
		if !rep.Fired || rep.Blocked != 2 {
			t.Errorf("try %d: %+v, want fired with 2 blocked", i, rep)
		}
		if got := db.count(t, "uitems", key); got != 1 {
			t.Errorf("try %d: %d rows, want 1", i, got)
		}
		if a, b := ex[0].Resp.StatusCode, ex[1].Resp.StatusCode; a+b != 201+200 {
			t.Errorf("try %d: statuses %d and %d, want one 201 and one 200", i, a, b)
		}
	}
}

// A key-first service under a stall of its effect table: the first request
// waits on the table, its duplicates on the first request's key row. Every
// one has arrived, so the stall fires; one item row per key.
func TestStallSeesRequestsWaitingBehindAnother(t *testing.T) {
	db := newStallDB(t)
	srv := serve(t, keyFirst(db.service))
	stall := fault.Stall{Pool: db.tester, Table: "items"}
	for i := range 5 {
		key := fmt.Sprintf("kf%d", i)
		var ex []client.Exchange
		rep, err := stall.Run(t.Context(), 3, burstOf(t, 3, srv.URL, key, &ex))
		if err != nil {
			t.Fatal(err)
		}
		requireAnswered(t, ex)
		if !rep.Fired || rep.Blocked != 3 {
			t.Errorf("try %d: %+v, want fired with all 3 blocked (1 on the table, 2 behind it)", i, rep)
		}
		if got := db.count(t, "items", key); got != 1 {
			t.Errorf("try %d: %d item rows, want 1", i, got)
		}
	}
}

// TestStallNotFired: requests that never reach the table leave the stall
// unfired once Wait has passed; that is a report, not an error.
func TestStallNotFired(t *testing.T) {
	db := newStallDB(t)
	stall := fault.Stall{Pool: db.tester, Table: "items", Wait: 100 * time.Millisecond}
	start := time.Now()
	rep, err := stall.Run(t.Context(), 2, func(context.Context, *atomic.Int64) {})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fired || rep.Blocked != 0 {
		t.Errorf("%+v, want not fired, none blocked", rep)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Run took %v with Wait 100ms", took)
	}
}

func TestStallPrivilege(t *testing.T) {
	db := newStallDB(t)
	exec(t, db.tester, `DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`)
	exec(t, db.tester, `GRANT SELECT ON items TO reader`)
	t.Cleanup(func() {
		exec(t, db.tester, `REVOKE ALL ON items FROM reader`)
	})
	reader := openPool(t, strings.Replace(db.url, "postgres://postgres@", "postgres://reader@", 1))
	stall := fault.Stall{Pool: reader, Table: "items"}
	want := "GRANT UPDATE ON items TO reader"

	err := stall.Check(t.Context())
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `role reader may not lock it`) || !errors.Is(err, fault.ErrCannotStall) {
		t.Errorf("Check: %v, want an error naming the role and %q", err, want)
	}
	called := false
	_, err = stall.Run(t.Context(), 1, func(context.Context, *atomic.Int64) { called = true })
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run: %v, want an error with %q", err, want)
	}
	if called {
		t.Error("Run sent the burst without holding the lock")
	}

	exec(t, db.tester, `GRANT UPDATE ON items TO reader`)
	if err := stall.Check(t.Context()); err != nil {
		t.Errorf("Check after %s: %v", want, err)
	}
}

func TestStallCheck(t *testing.T) {
	db := newStallDB(t)
	exec(t, db.tester, `CREATE SCHEMA "Odd"; CREATE TABLE "Odd"."Table" (key text)`)
	for _, tc := range []struct{ table, err string }{
		{"items", ""},
		{"public.uitems", ""},
		{"Odd.Table", ""},
		{"odd.table", `fault: db-stall on table odd.table: no such table`},
		{"nope", `fault: db-stall on table nope: no such table (unqualified names follow the role's search_path)`},
	} {
		err := fault.Stall{Pool: db.tester, Table: tc.table}.Check(t.Context())
		if tc.err != "" && !errors.Is(err, fault.ErrCannotStall) {
			t.Errorf("%s: %v is not an ErrCannotStall", tc.table, err)
		}
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
			t.Errorf("Check(%s) = %v, want %q", tc.table, err, tc.err)
		}
	}
	for _, tc := range []struct {
		stall fault.Stall
		err   string
	}{
		{fault.Stall{Pool: db.tester}, "fault: db-stall: no table named (Stall.Table)"},
		{fault.Stall{Table: "items"}, "fault: db-stall on table items: no database pool (Stall.Pool)"},
	} {
		if err := tc.stall.Check(t.Context()); err == nil || err.Error() != tc.err {
			t.Errorf("Check = %v, want %s", err, tc.err)
		}
		if _, err := tc.stall.Run(t.Context(), 1, func(context.Context, *atomic.Int64) {}); err == nil || err.Error() != tc.err {
			t.Errorf("Run = %v, want %s", err, tc.err)
		}
	}
}

// TestStallReleasesLock: whatever ends a stall, the table is writable
// again the moment Run returns.
func TestStallReleasesLock(t *testing.T) {
	db := newStallDB(t)
	srv := serve(t, checkThenInsert(db.service))
	type run struct {
		ctx   context.Context
		n     int
		burst func(context.Context, *atomic.Int64)
	}
	var ex []client.Exchange
	for _, tc := range []struct {
		name      string
		setup     func(t *testing.T) run
		err       error // errors.Is the error Run returns
		wantPanic any
	}{
		{"fired", func(t *testing.T) run {
			return run{t.Context(), 2, burstOf(t, 2, srv.URL, "fired", &ex)}
		}, nil, nil},
		{"not fired", func(t *testing.T) run {
			return run{t.Context(), 3, burstOf(t, 2, srv.URL, "unfired", &ex)}
		}, nil, nil},
		{"burst panics", func(t *testing.T) run {
			return run{t.Context(), 2, func(context.Context, *atomic.Int64) { panic("burst blew up") }}
		}, nil, "burst blew up"},
		{"cancelled", func(t *testing.T) run {
			// Three requests awaited, two sent: it would wait its full
			// Wait, were it not cancelled; the two are blocked meanwhile.
			ctx, cancel := context.WithCancel(t.Context())
			timer := time.AfterFunc(300*time.Millisecond, cancel)
			t.Cleanup(func() { timer.Stop(); cancel() })
			return run{ctx, 3, burstOf(t, 2, srv.URL, "cancelled", &ex)}
		}, context.Canceled, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.setup(t)
			stall := fault.Stall{Pool: db.tester, Table: "items", Wait: time.Minute}
			if tc.name == "not fired" {
				stall.Wait = 200 * time.Millisecond
			}
			start := time.Now()
			var err error
			func() {
				defer func() {
					if got := recover(); got != tc.wantPanic {
						t.Errorf("Run panicked with %v, want %v", got, tc.wantPanic)
					}
				}()
				_, err = stall.Run(r.ctx, r.n, r.burst)
			}()
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("Run took %v", took)
			}
			if tc.err == nil && err != nil || tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("Run: %v, want %v", err, tc.err)
			}
			requireWritable(t, db.tester)
		})
	}
}

// requireWritable writes to items from a connection of its own, with a
// lock_timeout short enough that a lock left behind fails the test.
func requireWritable(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := t.Context()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET lock_timeout = '200ms'`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO items (key) VALUES ('after'); DELETE FROM items WHERE key = 'after'`); err != nil {
		t.Errorf("writing after the stall: %v", err)
	}
	if _, err := conn.Exec(ctx, `RESET lock_timeout`); err != nil {
		t.Fatal(err)
	}
	var held int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE relation = 'items'::regclass AND mode = 'ExclusiveLock'`).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held != 0 {
		t.Errorf("%d EXCLUSIVE locks on items left after the stall", held)
	}
}

// TestStallWaitsForRequestsStillArriving: on a loaded machine a burst's
// requests reach the table one by one. Each one seen shows the rest are on
// their way, so the wait runs from the last one seen, and the first may
// take the whole bound (the burst dials every connection first): three
// requests that arrive 0.7, 1.0 and 1.3 s after the lock are all held under
// a 500 ms wait, and the stall fires.
func TestStallWaitsForRequestsStillArriving(t *testing.T) {
	db := newStallDB(t)
	var arrived atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		time.Sleep(700*time.Millisecond + time.Duration(arrived.Add(1)-1)*300*time.Millisecond)
		if _, err := db.service.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, r.URL.Query().Get("key")); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	stall := fault.Stall{Pool: db.tester, Table: "items", Wait: 500 * time.Millisecond}
	var ex []client.Exchange
	rep, err := stall.Run(t.Context(), 3, burstOf(t, 3, srv.URL, "slow", &ex))
	if err != nil {
		t.Fatal(err)
	}
	requireAnswered(t, ex)
	if !rep.Fired || rep.Blocked != 3 {
		t.Errorf("%+v, want fired with all 3 blocked", rep)
	}
}
