package pgproxy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

// TestErrorInPipeline: in a pgx batch (Parse, Bind, Describe, Execute of
// each statement, one Sync) the error dealt at the second Execute reaches
// the client as that statement's error, after the first one's answer, and
// the batch's implicit transaction is rolled back.
func TestErrorInPipeline(t *testing.T) {
	// pgx's names for its modes in a connection string.
	for _, mode := range []string{"cache_statement", "describe_exec", "exec"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, at(pgproxy.BeforeStatement, 2, pgproxy.Error("40P01")))
			ctx := context.Background()
			conn := connect(t, f.url+"&default_query_exec_mode="+mode)
			mustExec(t, conn, "CREATE TABLE t (k text)")
			call := f.proxy.Tie("A/k1", []byte("key-1"))
			defer call.Untie()

			b := &pgx.Batch{}
			b.Queue("INSERT INTO t VALUES ($1)", "key-1")
			b.Queue("INSERT INTO t VALUES ($1) RETURNING k", "other")
			b.Queue("SELECT count(*) FROM t")
			br := conn.SendBatch(ctx, b)
			if _, err := br.Exec(); err != nil {
				t.Fatal("first statement:", err)
			}
			var k string
			err := br.QueryRow().Scan(&k)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
				t.Fatalf("second statement: %v, want the 40P01", err)
			}
			_ = br.Close()
			if n := count(t, f.direct, "t"); n != 0 {
				t.Errorf("%d rows committed, want 0 (the batch's implicit transaction failed)", n)
			}
			if err := conn.Ping(ctx); err != nil {
				t.Errorf("after the batch: %v", err)
			}
		})
	}
}

// TestErrorAfterCommit: once the server has committed, an ERROR-level
// code can only be a lost connection; the rows stay.
func TestErrorAfterCommit(t *testing.T) {
	f := newFixture(t, at(pgproxy.AfterCommit, 3, pgproxy.Error("40001")))
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	call := f.proxy.Tie("A/k1", []byte("key-1"))
	defer call.Untie()
	_, commit := twoStatements(t, conn, pgx.QueryExecModeCacheStatement)
	var pgErr *pgconn.PgError
	if commit == nil || errors.As(commit, &pgErr) {
		t.Fatalf("commit: %v, want a lost connection", commit)
	}
	if n := count(t, f.direct, "t"); n != 2 {
		t.Errorf("%d rows, want the 2 committed", n)
	}
}
