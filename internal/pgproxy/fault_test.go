package pgproxy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

// at answers act at the first point of kind and index, Continue elsewhere.
func at(kind pgproxy.Kind, index int, act pgproxy.Action) func(pgproxy.Point) pgproxy.Action {
	return func(pt pgproxy.Point) pgproxy.Action {
		if pt.Kind == kind && pt.Index == index {
			return act
		}
		return pgproxy.Continue
	}
}

// twoStatements runs a transaction of two INSERTs tied by the marker in
// the first one's parameter and returns the error of the second, and of
// the commit. It may run in a goroutine of its own: a failure before the
// second statement is an error of both (t.Fatal would leave a test
// waiting for a point that never comes).
func twoStatements(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) (second, commit error) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Error(err)
		return err, err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO t VALUES ($1)", mode, "key-1"); err != nil {
		t.Error("first insert:", err)
		return err, err
	}
	_, second = tx.Exec(ctx, "INSERT INTO t VALUES ($1)", mode, "other")
	commit = tx.Commit(ctx)
	return second, commit
}

// TestErrorAtStatement: a 40001 or 40P01 dealt at the second statement is
// the server's own error: the client reads a *pgconn.PgError with the code
// and severity ERROR, the transaction is rolled back, and the connection
// serves the next query.
func TestErrorAtStatement(t *testing.T) {
	for _, code := range []string{"40001", "40P01"} {
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
			t.Run(code+"/"+mode.String(), func(t *testing.T) {
				f := newFixture(t, at(pgproxy.BeforeStatement, 2, pgproxy.Error(code)))
				conn := connect(t, f.url)
				mustExec(t, conn, "CREATE TABLE t (k text)")
				call := f.proxy.Tie("A/k1", []byte("key-1"))
				defer call.Untie()

				second, commit := twoStatements(t, conn, mode)
				var pgErr *pgconn.PgError
				if !errors.As(second, &pgErr) || pgErr.Code != code || pgErr.Severity != "ERROR" {
					t.Fatalf("second statement: %v, want a PgError %s of severity ERROR", second, code)
				}
				if !errors.Is(commit, pgx.ErrTxCommitRollback) {
					t.Errorf("commit: %v, want pgx.ErrTxCommitRollback (the server's transaction failed)", commit)
				}
				if n := count(t, f.direct, "t"); n != 0 {
					t.Errorf("%d rows committed, want 0", n)
				}
				if err := conn.Ping(context.Background()); err != nil {
					t.Errorf("the connection after the error: %v", err)
				}
				wantInjected(t, call, pgproxy.Injection{Kind: pgproxy.BeforeStatement, Index: 2, Code: code})
			})
		}
	}
}

// TestErrorOutsideTransaction: an autocommit statement answered with an
// error leaves nothing behind and no transaction open.
func TestErrorOutsideTransaction(t *testing.T) {
	f := newFixture(t, at(pgproxy.BeforeStatement, 1, pgproxy.Error("40001")))
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	call := f.proxy.Tie("A/k1", []byte("key-1"))
	defer call.Untie()
	_, err := conn.Exec(context.Background(), "INSERT INTO t VALUES ($1)", "key-1")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "40001" {
		t.Fatalf("insert: %v, want a 40001", err)
	}
	if st := conn.PgConn().TxStatus(); st != 'I' {
		t.Errorf("transaction status %q after the error, want 'I'", st)
	}
	mustExec(t, conn, "INSERT INTO t VALUES ('after')")
	if n := count(t, f.direct, "t"); n != 1 {
		t.Errorf("%d rows, want the 1 inserted after the error", n)
	}
}

// TestFatalError: 57P01 arrives as a FATAL error and the session is over;
// the server rolled back.
func TestFatalError(t *testing.T) {
	f := newFixture(t, at(pgproxy.BeforeStatement, 2, pgproxy.Error("57P01")))
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	call := f.proxy.Tie("A/k1", []byte("key-1"))
	defer call.Untie()
	second, _ := twoStatements(t, conn, pgx.QueryExecModeCacheStatement)
	var pgErr *pgconn.PgError
	if !errors.As(second, &pgErr) || pgErr.Code != "57P01" || pgErr.Severity != "FATAL" {
		t.Fatalf("second statement: %v, want a FATAL 57P01", second)
	}
	if !conn.IsClosed() {
		if err := conn.Ping(context.Background()); err == nil {
			t.Error("the connection still serves after a FATAL error")
		}
	}
	waitCount(t, f.direct, "t", 0)
	wantInjected(t, call, pgproxy.Injection{Kind: pgproxy.BeforeStatement, Index: 2, Code: "57P01"})
}

// TestCut: the client's connection fails at the point, not with a server
// error, and the server rolls back.
func TestCut(t *testing.T) {
	f := newFixture(t, at(pgproxy.BeforeCommit, 3, pgproxy.Cut))
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	call := f.proxy.Tie("A/k1", []byte("key-1"))
	defer call.Untie()
	second, commit := twoStatements(t, conn, pgx.QueryExecModeCacheStatement)
	if second != nil {
		t.Fatal("second statement:", second)
	}
	var pgErr *pgconn.PgError
	if commit == nil || errors.As(commit, &pgErr) {
		t.Fatalf("commit: %v, want a lost connection", commit)
	}
	waitCount(t, f.direct, "t", 0)
	wantInjected(t, call, pgproxy.Injection{Kind: pgproxy.BeforeCommit, Index: 3})
}

// TestHoldThenRelease: a commit held is not on the server until released.
func TestHoldThenRelease(t *testing.T) {
	release := make(chan struct{})
	reached := make(chan struct{})
	f := newFixture(t, func(pt pgproxy.Point) pgproxy.Action {
		if pt.Kind == pgproxy.BeforeCommit {
			close(reached)
			return pgproxy.Hold(release)
		}
		return pgproxy.Continue
	})
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	call := f.proxy.Tie("A/k1", []byte("key-1"))
	defer call.Untie()
	done := make(chan error, 1)
	go func() { _, commit := twoStatements(t, conn, pgx.QueryExecModeCacheStatement); done <- commit }()
	waitFor(t, reached)
	time.Sleep(50 * time.Millisecond)
	if n := count(t, f.direct, "t"); n != 0 {
		t.Errorf("%d rows while the commit is held, want 0", n)
	}
	select {
	case err := <-done:
		t.Fatalf("commit returned while held: %v", err)
	default:
	}
	if held := f.proxy.Held(); held != 1 {
		t.Errorf("Held() = %d while the commit is held, want 1", held)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal("commit after release:", err)
	}
	if held := f.proxy.Held(); held != 0 {
		t.Errorf("Held() = %d after release, want 0", held)
	}
	if inj := call.Injected(); len(inj) != 0 {
		t.Errorf("Injected() = %v after a hold, want none", inj)
	}
	if n := count(t, f.direct, "t"); n != 2 {
		t.Errorf("%d rows after release, want 2", n)
	}
}

// TestHoldThenClientDies: the client's connection closed while its session
// is held (as when the replica is SIGKILLed there) ends the session; before
// the commit the server rolls back, after it the rows stay although the
// client never read the answer.
func TestHoldThenClientDies(t *testing.T) {
	for _, c := range []struct {
		kind pgproxy.Kind
		rows int
	}{{pgproxy.BeforeCommit, 0}, {pgproxy.AfterCommit, 2}} {
		t.Run(c.kind.String(), func(t *testing.T) {
			reached := make(chan struct{})
			f := newFixture(t, func(pt pgproxy.Point) pgproxy.Action {
				if pt.Kind == c.kind {
					close(reached)
					return pgproxy.Hold(nil)
				}
				return pgproxy.Continue
			})
			conn := connect(t, f.url)
			mustExec(t, conn, "CREATE TABLE t (k text)")
			call := f.proxy.Tie("A/k1", []byte("key-1"))
			defer call.Untie()
			done := make(chan error, 1)
			go func() { _, commit := twoStatements(t, conn, pgx.QueryExecModeCacheStatement); done <- commit }()
			waitFor(t, reached)
			conn.PgConn().Conn().Close() // the replica dies
			if err := <-done; err == nil {
				t.Error("commit succeeded on a dead connection")
			}
			waitCount(t, f.direct, "t", c.rows)
			waitIdle(t, f.direct)
		})
	}
}

// waitCount waits for the server to settle at want rows: a backend whose
// client is gone rolls back a moment later.
func waitCount(t *testing.T, url, table string, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := count(t, url, table)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows in %s, want %d", n, table, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitIdle waits until no other backend of the database is in a transaction.
func waitIdle(t *testing.T, url string) {
	t.Helper()
	conn := connect(t, url)
	deadline := time.Now().Add(5 * time.Second)
	for {
		var n int
		err := conn.QueryRow(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL").Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d backends still in a transaction", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFor waits for the hook to reach its point.
func waitFor(t *testing.T, reached <-chan struct{}) {
	t.Helper()
	select {
	case <-reached:
	case <-time.After(10 * time.Second):
		t.Fatal("the session never reached the point")
	}
}

// wantInjected: the call's only delivered injection is want.
func wantInjected(t *testing.T, call *pgproxy.Call, want pgproxy.Injection) {
	t.Helper()
	if inj := call.Injected(); len(inj) != 1 || inj[0] != want {
		t.Errorf("Injected() = %v, want [%v]", inj, want)
	}
}
