package ticketsvc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// newDatabase creates an empty database on the test cluster.
func newDatabase(t *testing.T) (url string) {
	t.Helper()
	return pgtest.NewDatabase(t, cluster)
}

// connect returns a pool big enough for real concurrency in the service.
func connect(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatalf("parse database URL %q: %v", url, err)
	}
	cfg.MaxConns = 20
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newPool connects to a fresh database migrated with layout and opts.
func newPool(t *testing.T, layout ticketsvc.Layout, opts ...ticketsvc.MigrateOption) *pgxpool.Pool {
	t.Helper()
	pool := connect(t, newDatabase(t))
	if err := ticketsvc.Migrate(t.Context(), pool, layout, opts...); err != nil {
		t.Fatal(err)
	}
	return pool
}

// forEachLayout runs f as one subtest per layout.
func forEachLayout(t *testing.T, f func(t *testing.T, layout ticketsvc.Layout)) {
	t.Helper()
	for _, layout := range ticketsvc.Layouts() {
		t.Run(string(layout), func(t *testing.T) { f(t, layout) })
	}
}

// env is one service under test: its HTTP server, client and database.
type env struct {
	t      *testing.T
	url    string
	client *http.Client
	pool   *pgxpool.Pool
	layout ticketsvc.Layout
	svc    *ticketsvc.Service
	opts   ticketsvc.Options
	// exits counts the service's exits (Options.Exit), which a test
	// process must not make.
	exits *atomic.Int64
}

// newEnv starts the service in the given layout and bug mode over a fresh
// database, behind a real HTTP server on loopback.
func newEnv(t *testing.T, layout ticketsvc.Layout, bug string) *env {
	t.Helper()
	return newEnvWith(t, ticketsvc.Options{Layout: layout, Bug: bug})
}

// newEnvWith migrates a fresh database for opts.Layout and opts.Bug and
// serves it.
func newEnvWith(t *testing.T, opts ticketsvc.Options) *env {
	t.Helper()
	return serve(t, newPool(t, opts.Layout, ticketsvc.ForBug(opts.Bug)), opts)
}

// replica starts a second Service in e's mode over e's database, through a
// pool of its own: another process of the same service.
func (e *env) replica() *env {
	e.t.Helper()
	return serve(e.t, connect(e.t, e.pool.Config().ConnString()), e.opts)
}

// serve starts the service over pool as it is.
func serve(t *testing.T, pool *pgxpool.Pool, opts ticketsvc.Options) *env {
	t.Helper()
	exits := &atomic.Int64{}
	if opts.Exit == nil {
		opts.Exit = func(int) { exits.Add(1) }
	}
	svc, err := ticketsvc.New(pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	client := srv.Client()
	// A hung call fails its test instead of the whole run.
	client.Timeout = 30 * time.Second
	t.Cleanup(client.CloseIdleConnections)
	return &env{t: t, url: srv.URL, client: client, pool: pool, layout: opts.Layout, svc: svc, opts: opts, exits: exits}
}

// answer is what a call got back.
type answer struct {
	status int
	id     int64 // ticket_id of a 2xx answer, else 0
	body   string
}

// post sends POST /tickets; an empty tenant or key leaves its header out.
func (e *env) post(ctx context.Context, tenant, key, body string) (answer, error) {
	return e.postQuery(ctx, tenant, key, "", body)
}

// mustPostQuery is mustPost with a query string on the URL.
func (e *env) mustPostQuery(tenant, key, query, body string) answer {
	e.t.Helper()
	a, err := e.postQuery(e.t.Context(), tenant, key, query, body)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// postQuery is post with a query string on the URL ("" for none).
func (e *env) postQuery(ctx context.Context, tenant, key, query, body string) (answer, error) {
	url := e.url + "/tickets"
	if query != "" {
		url += "?" + query
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if tenant != "" {
		req.Header.Set("X-Tenant", tenant)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return e.do(req)
}

func (e *env) do(req *http.Request) (answer, error) {
	resp, err := e.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("read answer: %w", err)
	}
	a := answer{status: resp.StatusCode, body: string(raw)}
	if resp.StatusCode/100 == 2 {
		var b struct {
			TicketID int64 `json:"ticket_id"`
		}
		if err := json.Unmarshal(raw, &b); err != nil || b.TicketID == 0 {
			return a, fmt.Errorf("%d answer without a ticket_id: %q", resp.StatusCode, raw)
		}
		a.id = b.TicketID
	} else if !json.Valid(raw) {
		return a, fmt.Errorf("%d answer body is not JSON: %q", resp.StatusCode, raw)
	}
	return a, nil
}

// mustPost is post for sequential test code.
func (e *env) mustPost(tenant, key, body string) answer {
	e.t.Helper()
	a, err := e.post(e.t.Context(), tenant, key, body)
	if err != nil {
		e.t.Fatalf("POST /tickets tenant=%q key=%q body=%s: %v", tenant, key, body, err)
	}
	return a
}

type ticketRow struct {
	ID      int64
	Subject string
}

type outboxRow struct {
	ID       int64
	TicketID int64
}

// effects are all rows written for one action.
type effects struct {
	Tickets []ticketRow
	Outbox  []outboxRow
}

// effectQueries select the rows of one action, $1 tenant and $2 key, in
// each layout: by their own columns, or in the tagged layout, whose tickets
// and outbox rows carry no key, through the service's idempotency_keys row.
var effectQueries = map[ticketsvc.Layout]struct{ tickets, outbox string }{
	ticketsvc.LayoutKeys: {
		tickets: `SELECT id, subject FROM tickets
			WHERE tenant = $1 AND request_key = $2 ORDER BY id`,
		outbox: `SELECT id, ticket_id FROM notification_outbox
			WHERE tenant = $1 AND request_key = $2 ORDER BY id`,
	},
	ticketsvc.LayoutTagged: {
		tickets: `SELECT t.id, t.subject FROM tickets t
			JOIN idempotency_keys k ON k.ticket_id = t.id
			WHERE k.tenant = $1 AND k.request_key = $2 ORDER BY t.id`,
		outbox: `SELECT o.id, o.ticket_id FROM notification_outbox o
			JOIN idempotency_keys k ON k.ticket_id = o.ticket_id
			WHERE k.tenant = $1 AND k.request_key = $2 ORDER BY o.id`,
	},
}

// effectsOf selects every row of tenant and key (no LIMIT), in id order.
func (e *env) effectsOf(tenant, key string) effects {
	e.t.Helper()
	ctx := e.t.Context()
	layout := e.layout
	if layout == "" {
		layout = ticketsvc.LayoutKeys
	}
	q, ok := effectQueries[layout]
	if !ok {
		e.t.Fatalf("no effect queries for layout %q", layout)
	}
	var ef effects
	rows, err := e.pool.Query(ctx, q.tickets, tenant, key)
	if err == nil {
		ef.Tickets, err = pgx.CollectRows(rows, pgx.RowToStructByPos[ticketRow])
	}
	if err != nil {
		e.t.Fatalf("select tickets of (%q, %q): %v", tenant, key, err)
	}
	rows, err = e.pool.Query(ctx, q.outbox, tenant, key)
	if err == nil {
		ef.Outbox, err = pgx.CollectRows(rows, pgx.RowToStructByPos[outboxRow])
	}
	if err != nil {
		e.t.Fatalf("select outbox of (%q, %q): %v", tenant, key, err)
	}
	return ef
}

// keyRows returns the number of idempotency_keys rows of tenant and key.
func (e *env) keyRows(tenant, key string) int {
	e.t.Helper()
	var n int
	err := e.pool.QueryRow(e.t.Context(), `SELECT count(*) FROM idempotency_keys
		WHERE tenant = $1 AND request_key = $2`, tenant, key).Scan(&n)
	if err != nil {
		e.t.Fatalf("count keys of (%q, %q): %v", tenant, key, err)
	}
	return n
}

// counts returns the number of rows in each table of the service.
func (e *env) counts() (tickets, outbox, keys int) {
	e.t.Helper()
	err := e.pool.QueryRow(e.t.Context(), `SELECT
		(SELECT count(*) FROM tickets),
		(SELECT count(*) FROM notification_outbox),
		(SELECT count(*) FROM idempotency_keys)`).Scan(&tickets, &outbox, &keys)
	if err != nil {
		e.t.Fatalf("count rows: %v", err)
	}
	return tickets, outbox, keys
}

// lockTable write-locks table (LOCK TABLE … IN EXCLUSIVE MODE) in a
// transaction of the test's own, rolled back when the test ends unless
// the caller ends it before: reads pass, every write waits.
func lockTable(t *testing.T, pool *pgxpool.Pool, table string) pgx.Tx {
	t.Helper()
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.WithoutCancel(t.Context())) })
	if _, err := tx.Exec(t.Context(), `LOCK TABLE `+pgx.Identifier{table}.Sanitize()+` IN EXCLUSIVE MODE`); err != nil {
		t.Fatalf("lock %s: %v", table, err)
	}
	return tx
}
