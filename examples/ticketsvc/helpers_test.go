package ticketsvc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
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

// newPool connects to a fresh, migrated database.
func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := connect(t, newDatabase(t))
	if err := ticketsvc.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// env is one service under test: its HTTP server, client and database.
type env struct {
	t      *testing.T
	url    string
	client *http.Client
	pool   *pgxpool.Pool
}

// newEnv starts the service in the given bug mode over a fresh database,
// behind a real HTTP server on loopback.
func newEnv(t *testing.T, bug string) *env {
	t.Helper()
	return newEnvWith(t, ticketsvc.Options{Bug: bug})
}

func newEnvWith(t *testing.T, opts ticketsvc.Options) *env {
	t.Helper()
	pool := newPool(t)
	svc, err := ticketsvc.New(pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	client := srv.Client()
	// A hung call fails its test instead of the whole run.
	client.Timeout = 30 * time.Second
	t.Cleanup(client.CloseIdleConnections)
	return &env{t: t, url: srv.URL, client: client, pool: pool}
}

// answer is what a call got back.
type answer struct {
	status int
	id     int64 // ticket_id of a 2xx answer, else 0
	body   string
}

// post sends POST /tickets; an empty tenant or key leaves its header out.
func (e *env) post(ctx context.Context, tenant, key, body string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/tickets", strings.NewReader(body))
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

// effectsOf selects every row of tenant and key (no LIMIT), in id order.
func (e *env) effectsOf(tenant, key string) effects {
	e.t.Helper()
	ctx := e.t.Context()
	var ef effects
	rows, err := e.pool.Query(ctx, `SELECT id, subject FROM tickets
		WHERE tenant = $1 AND request_key = $2 ORDER BY id`, tenant, key)
	if err == nil {
		ef.Tickets, err = pgx.CollectRows(rows, pgx.RowToStructByPos[ticketRow])
	}
	if err != nil {
		e.t.Fatalf("select tickets of (%q, %q): %v", tenant, key, err)
	}
	rows, err = e.pool.Query(ctx, `SELECT id, ticket_id FROM notification_outbox
		WHERE tenant = $1 AND request_key = $2 ORDER BY id`, tenant, key)
	if err == nil {
		ef.Outbox, err = pgx.CollectRows(rows, pgx.RowToStructByPos[outboxRow])
	}
	if err != nil {
		e.t.Fatalf("select outbox of (%q, %q): %v", tenant, key, err)
	}
	return ef
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
