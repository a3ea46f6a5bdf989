package dbstall_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/testbed/racedb"
)

// TestStallForcesCheckThenInsertRace: under the stall both requests of a
// burst do their SELECT before either INSERTs, every time.
func TestStallForcesCheckThenInsertRace(t *testing.T) {
	db := racedb.New(t)
	srv := serve(t, racedb.CheckThenInsert(db.Service))

	// Without the stall the race is up to the scheduler; shown, not judged.
	raced := 0
	for i := range 10 {
		key := fmt.Sprintf("free-%d", i)
		var ex []client.Exchange
		racedb.Burst(t, 2, srv.URL, key, &ex)(t.Context(), new(atomic.Int64))
		racedb.RequireAnswered(t, ex)
		if db.Count(t, "items", key) > 1 {
			raced++
		}
	}
	t.Logf("without the stall, %d of 10 bursts raced", raced)

	for _, table := range []string{"items", "public.items"} {
		stall := dbstall.Stall{Pool: db.Tester, Table: table}
		for i := range 10 {
			key := fmt.Sprintf("%s-%d", table, i)
			var ex []client.Exchange
			rep, err := stall.Run(t.Context(), 2, racedb.Burst(t, 2, srv.URL, key, &ex))
			if err != nil {
				t.Fatal(err)
			}
			racedb.RequireAnswered(t, ex)
			if !rep.Fired || rep.Blocked != 2 {
				t.Errorf("try %d on %s: %+v, want fired with 2 blocked", i, table, rep)
			}
			if got := db.Count(t, "items", key); got != 2 {
				t.Errorf("try %d on %s: %d rows for one key, want 2: the stall did not force the race", i, table, got)
			}
		}
	}
}

// TestStallKeepsCorrectHandlerCorrect: the stall forces the same overlap
// on a handler that is right, which still writes one row.
func TestStallKeepsCorrectHandlerCorrect(t *testing.T) {
	db := racedb.New(t)
	srv := serve(t, racedb.InsertOnConflict(db.Service))
	stall := dbstall.Stall{Pool: db.Tester, Table: "uitems"}
	for i := range 5 {
		key := fmt.Sprintf("k%d", i)
		var ex []client.Exchange
		rep, err := stall.Run(t.Context(), 2, racedb.Burst(t, 2, srv.URL, key, &ex))
		if err != nil {
			t.Fatal(err)
		}
		racedb.RequireAnswered(t, ex)
		if !rep.Fired || rep.Blocked != 2 {
			t.Errorf("try %d: %+v, want fired with 2 blocked", i, rep)
		}
		if got := db.Count(t, "uitems", key); got != 1 {
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
	db := racedb.New(t)
	srv := serve(t, racedb.KeyFirst(db.Service))
	stall := dbstall.Stall{Pool: db.Tester, Table: "items"}
	for i := range 5 {
		key := fmt.Sprintf("kf%d", i)
		var ex []client.Exchange
		rep, err := stall.Run(t.Context(), 3, racedb.Burst(t, 3, srv.URL, key, &ex))
		if err != nil {
			t.Fatal(err)
		}
		racedb.RequireAnswered(t, ex)
		if !rep.Fired || rep.Blocked != 3 {
			t.Errorf("try %d: %+v, want fired with all 3 blocked (1 on the table, 2 behind it)", i, rep)
		}
		if got := db.Count(t, "items", key); got != 1 {
			t.Errorf("try %d: %d item rows, want 1", i, got)
		}
	}
}

// TestStallNotFired: requests that never reach the table leave the stall
// unfired once Wait has passed; that is a report, not an error.
func TestStallNotFired(t *testing.T) {
	db := racedb.New(t)
	stall := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: 100 * time.Millisecond}
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
	db := racedb.New(t)
	racedb.Exec(t, db.Tester, `DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`)
	racedb.Exec(t, db.Tester, `GRANT SELECT ON items TO reader`)
	t.Cleanup(func() {
		racedb.Exec(t, db.Tester, `REVOKE ALL ON items FROM reader`)
	})
	reader := racedb.OpenPool(t, strings.Replace(db.URL, "postgres://postgres@", "postgres://reader@", 1))
	stall := dbstall.Stall{Pool: reader, Table: "items"}
	want := "GRANT UPDATE ON items TO reader"

	err := stall.Check(t.Context())
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `role reader may not lock it`) || !errors.Is(err, dbstall.ErrCannotStall) {
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

	racedb.Exec(t, db.Tester, `GRANT UPDATE ON items TO reader`)
	if err := stall.Check(t.Context()); err != nil {
		t.Errorf("Check after %s: %v", want, err)
	}
}

func TestStallCheck(t *testing.T) {
	db := racedb.New(t)
	racedb.Exec(t, db.Tester, `CREATE SCHEMA "Odd"; CREATE TABLE "Odd"."Table" (key text)`)
	for _, tc := range []struct{ table, err string }{
		{"items", ""},
		{"public.uitems", ""},
		{"Odd.Table", ""},
		{"odd.table", `fault: db-stall on table odd.table: no such table`},
		{"nope", `fault: db-stall on table nope: no such table (unqualified names follow the role's search_path)`},
	} {
		err := dbstall.Stall{Pool: db.Tester, Table: tc.table}.Check(t.Context())
		if tc.err != "" && !errors.Is(err, dbstall.ErrCannotStall) {
			t.Errorf("%s: %v is not an ErrCannotStall", tc.table, err)
		}
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
			t.Errorf("Check(%s) = %v, want %q", tc.table, err, tc.err)
		}
	}
	for _, tc := range []struct {
		stall dbstall.Stall
		err   string
	}{
		{dbstall.Stall{Pool: db.Tester}, "fault: db-stall: no table named (Stall.Table)"},
		{dbstall.Stall{Table: "items"}, "fault: db-stall on table items: no database pool (Stall.Pool)"},
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
	db := racedb.New(t)
	srv := serve(t, racedb.CheckThenInsert(db.Service))
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
			return run{t.Context(), 2, racedb.Burst(t, 2, srv.URL, "fired", &ex)}
		}, nil, nil},
		{"not fired", func(t *testing.T) run {
			return run{t.Context(), 3, racedb.Burst(t, 2, srv.URL, "unfired", &ex)}
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
			return run{ctx, 3, racedb.Burst(t, 2, srv.URL, "cancelled", &ex)}
		}, context.Canceled, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.setup(t)
			stall := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: time.Minute}
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
			requireWritable(t, db.Tester)
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
	db := racedb.New(t)
	var arrived atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		time.Sleep(700*time.Millisecond + time.Duration(arrived.Add(1)-1)*300*time.Millisecond)
		if _, err := db.Service.Exec(r.Context(), `INSERT INTO items (key) VALUES ($1)`, r.URL.Query().Get("key")); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	stall := dbstall.Stall{Pool: db.Tester, Table: "items", Wait: 500 * time.Millisecond}
	var ex []client.Exchange
	rep, err := stall.Run(t.Context(), 3, racedb.Burst(t, 3, srv.URL, "slow", &ex))
	if err != nil {
		t.Fatal(err)
	}
	racedb.RequireAnswered(t, ex)
	if !rep.Fired || rep.Blocked != 3 {
		t.Errorf("%+v, want fired with all 3 blocked", rep)
	}
}
