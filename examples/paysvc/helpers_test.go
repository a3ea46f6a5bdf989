package paysvc_test

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

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// connect returns a pool on a fresh, migrated database, big enough for
// real concurrency in the service.
func connect(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := connectTo(t, pgtest.NewDatabase(t, cluster))
	if err := paysvc.Migrate(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// connectTo connects to the database at url.
func connectTo(t *testing.T, url string) *pgxpool.Pool {
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

// env is one service under test: its HTTP server, client and database.
type env struct {
	t      *testing.T
	url    string
	client *http.Client
	pool   *pgxpool.Pool
	opts   paysvc.Options
}

// newEnv serves the service with opts over a fresh database, behind a real
// HTTP server on loopback.
func newEnv(t *testing.T, opts paysvc.Options) *env {
	t.Helper()
	pool := connect(t)
	svc, err := paysvc.New(pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	client := srv.Client()
	// A hung call fails its test instead of the whole run.
	client.Timeout = 30 * time.Second
	t.Cleanup(client.CloseIdleConnections)
	return &env{t: t, url: srv.URL, client: client, pool: pool, opts: opts}
}

// answer is what a call got back.
type answer struct {
	status int
	body   string
	// id is payment.id of a 200 answer; code and field are errors[0]'s of
	// an error answer.
	id, code, field string
}

// payBody is a create body; an empty key leaves idempotency_key out.
func payBody(key string, amount int64, note string) string {
	b := fmt.Sprintf(`{"amount_money": {"amount": %d, "currency": "USD"}, "source_id": "cnon:card-nonce-ok", "note": %q}`, amount, note)
	if key != "" {
		b = fmt.Sprintf(`{"idempotency_key": %q, `, key) + b[1:]
	}
	return b
}

// pay creates a payment of amount for merchant under key, the key where
// the service's mode wants it.
func (e *env) pay(ctx context.Context, merchant, key string, amount int64, note string) (answer, error) {
	if e.opts.KeyHeader == "" {
		return e.post(ctx, merchant, nil, payBody(key, amount, note))
	}
	h := http.Header{}
	if key != "" {
		h.Set(e.opts.KeyHeader, key)
	}
	return e.post(ctx, merchant, h, payBody("", amount, note))
}

// mustPay is pay for sequential test code.
func (e *env) mustPay(merchant, key string, amount int64, note string) answer {
	e.t.Helper()
	a, err := e.pay(e.t.Context(), merchant, key, amount, note)
	if err != nil {
		e.t.Fatalf("pay %s/%s %d %q: %v", merchant, key, amount, note, err)
	}
	return a
}

// mustPost sends body to merchant's payments with the headers.
func (e *env) mustPost(merchant string, h http.Header, body string) answer {
	e.t.Helper()
	a, err := e.post(e.t.Context(), merchant, h, body)
	if err != nil {
		e.t.Fatalf("POST %s %s: %v", merchant, body, err)
	}
	return a
}

func (e *env) post(ctx context.Context, merchant string, h http.Header, body string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/v2/merchants/"+merchant+"/payments", strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range h {
		req.Header[k] = vs
	}
	return e.do(req)
}

// do sends req and checks the answer's shape: a 200 has payment.id, any
// other status one entry of errors with a category and a code.
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
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		return a, fmt.Errorf("%d answer has Content-Type %q", resp.StatusCode, ct)
	}
	var b struct {
		Payment *struct {
			ID string `json:"id"`
		} `json:"payment"`
		Errors []struct{ Category, Code, Field, Detail string } `json:"errors"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return a, fmt.Errorf("%d answer body is not JSON: %q", resp.StatusCode, raw)
	}
	if resp.StatusCode == http.StatusOK {
		if b.Payment == nil || b.Payment.ID == "" {
			return a, fmt.Errorf("200 answer without payment.id: %q", raw)
		}
		a.id = b.Payment.ID
		return a, nil
	}
	if len(b.Errors) != 1 || b.Errors[0].Category == "" || b.Errors[0].Code == "" || b.Errors[0].Detail == "" {
		return a, fmt.Errorf("%d answer without one error of category, code and detail: %q", resp.StatusCode, raw)
	}
	a.code, a.field = b.Errors[0].Code, b.Errors[0].Field
	return a, nil
}

// rows counts the payments of merchant's key and their ledger entries.
func (e *env) rows(merchant, key string) (payments, ledger int) {
	e.t.Helper()
	err := e.pool.QueryRow(e.t.Context(), `SELECT
		(SELECT count(*) FROM payments WHERE merchant = $1 AND idempotency_key = $2),
		(SELECT count(*) FROM ledger_entries l JOIN payments p ON p.id = l.payment_id
			WHERE p.merchant = $1 AND p.idempotency_key = $2)`, merchant, key).Scan(&payments, &ledger)
	if err != nil {
		e.t.Fatalf("count rows of (%q, %q): %v", merchant, key, err)
	}
	return payments, ledger
}

// total counts every row of each table.
func (e *env) total() (payments, ledger, keys int) {
	e.t.Helper()
	err := e.pool.QueryRow(e.t.Context(), `SELECT (SELECT count(*) FROM payments),
		(SELECT count(*) FROM ledger_entries), (SELECT count(*) FROM idempotency_keys)`).Scan(&payments, &ledger, &keys)
	if err != nil {
		e.t.Fatalf("count rows: %v", err)
	}
	return payments, ledger, keys
}

// wantRows fails unless merchant's key has that many payments and ledger
// entries.
func (e *env) wantRows(merchant, key string, payments, ledger int) {
	e.t.Helper()
	if p, l := e.rows(merchant, key); p != payments || l != ledger {
		e.t.Errorf("%s/%s: %d payments and %d ledger entries, want %d and %d", merchant, key, p, l, payments, ledger)
	}
}

// httptestServer serves h on loopback for the test and returns its URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
