package pgproxy_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

// TestTiesTransactionByMarker: the marker in the first INSERT's parameter
// ties that transaction, its UPDATE without the marker and its COMMIT to
// the call; the BEGIN before it and the statements after it are not the
// call's.
func TestTiesTransactionByMarker(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t, nil)
			ctx := context.Background()
			conn := connect(t, f.url)
			mustExec(t, conn, "CREATE TABLE t (k text, n int)")
			call := f.proxy.Tie("A/k1", []byte("key-1"))
			defer call.Untie()

			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO t VALUES ($1, 1)", mode, "key-1"); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "UPDATE t SET n = n + 1 WHERE n = $1", mode, 1); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			mustExec(t, conn, "SELECT 1")

			want := []string{
				"before statement 1", "after statement 1",
				"before statement 2", "after statement 2",
				"before commit 3", "after commit 3",
			}
			if got := steps(call.Trace()); !slices.Equal(got, want) {
				t.Errorf("trace %q, want %q", got, want)
			}
			wantEvents := []string{
				"statement begins", "statement answered", "statement begins", "statement answered",
				"commit begins", "commit answered", "transaction ends",
			}
			if got := f.events.of("A/k1"); !slices.Equal(got, wantEvents) {
				t.Errorf("events %q, want %q", got, wantEvents)
			}
			if fp := call.Trace()[0].Fingerprint; fp != "insert into t values ($1, ?)" && fp != "insert into t values (?, ?)" {
				t.Errorf("fingerprint %q", fp)
			}
		})
	}
}

// TestNoMarkerNoTie: a session that never sends the marker is not tied,
// and an untied call ties nothing.
func TestNoMarkerNoTie(t *testing.T) {
	f := newFixture(t, nil)
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	other := f.proxy.Tie("B/k2", []byte("key-2"))
	gone := f.proxy.Tie("C/k3", []byte("key-3"))
	gone.Untie()
	mustExec(t, conn, "INSERT INTO t VALUES ($1)", "key-1")
	mustExec(t, conn, "INSERT INTO t VALUES ($1)", "key-3")
	if tr := other.Trace(); len(tr) != 0 {
		t.Errorf("call B tied without its marker: %v", steps(tr))
	}
	if tr := gone.Trace(); len(tr) != 0 {
		t.Errorf("untied call C still tied: %v", steps(tr))
	}
}

// TestTwoTransactionsOfOneCall: a call whose key record and effects commit
// in two transactions, each with the marker, has a point between them.
func TestTwoTransactionsOfOneCall(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE keys (k text)")
	mustExec(t, conn, "CREATE TABLE effects (k text)")
	call := f.proxy.Tie("A/k1", []byte("key-1"))
	defer call.Untie()
	for _, table := range []string{"keys", "effects"} {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO "+table+" VALUES ($1)", "key-1")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"before statement 1", "after statement 1", "before commit 2", "after commit 2",
		"between transactions 3", "before statement 3", "after statement 3", "before commit 4", "after commit 4",
	}
	if got := steps(call.Trace()); !slices.Equal(got, want) {
		t.Errorf("trace %q, want %q", got, want)
	}
	if tr := call.Trace(); tr[0].Tx != 1 || tr[len(tr)-1].Tx != 2 {
		t.Errorf("transactions numbered %d..%d, want 1..2", tr[0].Tx, tr[len(tr)-1].Tx)
	}
}

// TestConcurrentSessions: sixteen calls over a pool of eight connections,
// each tied by its own key; each trace is its own call's, whole.
func TestConcurrentSessions(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	mustExec(t, connect(t, f.url), "CREATE TABLE t (k text, n int)")
	cfg, err := pgxpool.ParseConfig(f.url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	const calls = 16
	var wg sync.WaitGroup
	traced := make([]func() []string, calls)
	for i := range calls {
		key := fmt.Sprintf("key-%02d", i)
		call := f.proxy.Tie("A/"+key, []byte(key))
		traced[i] = func() []string { return steps(call.Trace()) }
		wg.Go(func() {
			defer call.Untie()
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "INSERT INTO t VALUES ($1, 0)", key); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "SELECT pg_sleep(0.01)")
				return err
			})
			if err != nil {
				t.Error(key, err)
			}
		})
	}
	wg.Wait()
	want := []string{
		"before statement 1", "after statement 1", "before statement 2", "after statement 2",
		"before commit 3", "after commit 3",
	}
	for i, tr := range traced {
		if got := tr(); !slices.Equal(got, want) {
			t.Errorf("call %d: trace %q, want %q", i, got, want)
		}
	}
	if n := count(t, f.direct, "t"); n != calls {
		t.Errorf("%d rows, want %d", n, calls)
	}
}

// TestHoldBetweenTransactions: a hold between a call's transactions,
// once released, still passes the point before the next statement.
func TestHoldBetweenTransactions(t *testing.T) {
	release := make(chan struct{})
	close(release)
	f := newFixture(t, func(pt pgproxy.Point) pgproxy.Action {
		if pt.Kind == pgproxy.BetweenTransactions {
			return pgproxy.Hold(release)
		}
		return pgproxy.Continue
	})
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	call := f.proxy.Tie("A/k1", []byte("key-1"))
	defer call.Untie()
	mustExec(t, conn, "INSERT INTO t VALUES ($1)", "key-1")
	mustExec(t, conn, "INSERT INTO t VALUES ($1)", "key-1")
	want := []string{"before statement 1", "after statement 1", "between transactions 2", "before statement 2", "after statement 2"}
	if got := steps(call.Trace()); !slices.Equal(got, want) {
		t.Errorf("trace %q, want %q", got, want)
	}
}

// TestCallHookOverridesOptions: a call's own hook (SetAt) answers at its
// points, in place of Options.At, which still answers for other calls.
func TestCallHookOverridesOptions(t *testing.T) {
	f := newFixture(t, func(pgproxy.Point) pgproxy.Action { return pgproxy.Error("40001") })
	ctx := context.Background()
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	own := f.proxy.Tie("own", []byte("key-own"))
	defer own.Untie()
	own.SetAt(func(pgproxy.Point) pgproxy.Action { return pgproxy.Continue })
	other := f.proxy.Tie("other", []byte("key-other"))
	defer other.Untie()
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1)", "key-own"); err != nil {
		t.Errorf("the call whose hook continues failed: %v", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1)", "key-other"); err == nil {
		t.Error("the call without a hook of its own was not answered by Options.At's 40001")
	}
}

// TestListenOnlyOnLoopback: a listen address outside loopback is refused
// before anything listens.
func TestListenOnlyOnLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:5432", "nonsense"} {
		if p, err := pgproxy.Start(pgproxy.Options{Server: "127.0.0.1:1", Listen: addr}); err == nil {
			p.Close()
			t.Errorf("Start with Listen %q: no error", addr)
		}
	}
	p, err := pgproxy.Start(pgproxy.Options{Server: "127.0.0.1:1", Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
}
