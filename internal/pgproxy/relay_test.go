package pgproxy_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestRelaysEveryProtocol: a pgx client through the proxy works as it does
// directly, in each of pgx's query modes, with batches and COPY.
func TestRelaysEveryProtocol(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (id int PRIMARY KEY, name text)")

	modes := []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	}
	for i, mode := range modes {
		if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1, $2)", mode, i, "it's "+mode.String()); err != nil {
			t.Fatalf("%s: insert: %v", mode, err)
		}
		var name string
		if err := conn.QueryRow(ctx, "SELECT name FROM t WHERE id = $1", mode, i).Scan(&name); err != nil {
			t.Fatalf("%s: select: %v", mode, err)
		}
		if name != "it's "+mode.String() {
			t.Errorf("%s: read %q back", mode, name)
		}
	}

	b := &pgx.Batch{}
	b.Queue("INSERT INTO t VALUES (100, 'a')")
	b.Queue("INSERT INTO t VALUES ($1, $2)", 101, "b")
	b.Queue("SELECT count(*) FROM t")
	br := conn.SendBatch(ctx, b)
	for range 2 {
		if _, err := br.Exec(); err != nil {
			t.Fatal("batch:", err)
		}
	}
	var n int
	if err := br.QueryRow().Scan(&n); err != nil || n != len(modes)+2 {
		t.Fatalf("batch count: %d, %v; want %d", n, err, len(modes)+2)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}

	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "name"},
		pgx.CopyFromRows([][]any{{200, "c"}, {201, "d"}}))
	if err != nil || copied != 2 {
		t.Fatalf("copy: %d rows, %v", copied, err)
	}
	if got := count(t, f.direct, "t"); got != len(modes)+4 {
		t.Errorf("%d rows committed, want %d", got, len(modes)+4)
	}

	// A server error passes through, and the session goes on.
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1, 'dup')", 100); err == nil || !strings.Contains(err.Error(), "23505") {
		t.Errorf("duplicate insert: %v, want a 23505", err)
	}
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("after an error: %v", err)
	}
}

// TestEventsWithoutCalls: untied sessions still report their statements,
// with the bound parameters as sent.
func TestEventsWithoutCalls(t *testing.T) {
	f := newFixture(t, nil)
	conn := connect(t, f.url)
	mustExec(t, conn, "CREATE TABLE t (k text)")
	mustExec(t, conn, "INSERT INTO t VALUES ($1)", "marker-xyz")
	var begins, answered bool
	for _, e := range f.events.all() {
		if e.Call != "" {
			t.Errorf("event %v tied to %q without a call", e.Kind, e.Call)
		}
		if e.Kind.String() == "statement begins" && slices.ContainsFunc(e.Params, func(p []byte) bool { return string(p) == "marker-xyz" }) {
			begins = true
		}
		if e.Kind.String() == "statement answered" && e.Tag == "INSERT 0 1" {
			answered = true
		}
	}
	if !begins || !answered {
		t.Errorf("no begin event with the parameter (%v) or no answer with its tag (%v): %+v", begins, answered, f.events.all())
	}
}

// TestPoolAndURL: a pgxpool reaches the database through the URL that
// keeps the base URL's user, database and parameters.
func TestPoolAndURL(t *testing.T) {
	f := newFixture(t, nil)
	url, err := f.proxy.URL(strings.Replace(f.direct, "sslmode=disable", "sslmode=prefer&application_name=via_proxy", 1))
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var app, db string
	if err := pool.QueryRow(context.Background(), "SELECT current_setting('application_name'), current_database()").Scan(&app, &db); err != nil {
		t.Fatal(err)
	}
	if app != "via_proxy" || !strings.HasSuffix(f.direct[:strings.Index(f.direct, "?")], "/"+db) {
		t.Errorf("application_name %q, database %q: want via_proxy and the base URL's", app, db)
	}
}

// TestCancelRequest: a CancelRequest (which a client sends on a new
// connection) reaches the server, which cancels the query it names.
func TestCancelRequest(t *testing.T) {
	f := newFixture(t, nil)
	conn := connect(t, f.url)
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = conn.PgConn().CancelRequest(context.Background())
	}()
	_, err := conn.Exec(context.Background(), "SELECT pg_sleep(10)")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("pg_sleep(10) cancelled: %v, want the server's 57014 query_canceled", err)
	}
	if err := conn.Ping(context.Background()); err != nil {
		t.Errorf("after the cancel: %v", err)
	}
}
