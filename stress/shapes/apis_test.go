package shapes_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// api is a small payments service written the way other APIs answer, not
// the way idemstress's own sample does: one table, the key inserted first
// (a concurrent duplicate waits on the first one's row), bodies compared as
// canonical JSON. Its style says how it answers; bug plants one mistake.
type api struct {
	style, bug string
	pool       *pgxpool.Pool
	// served counts the requests, for a bug that answers one of them
	// otherwise.
	served atomic.Int64
}

const (
	squareStyle     = "square"     // 200 for created and replayed; 400 + errors[0].code for a reused and a missing key
	gocardlessStyle = "gocardless" // 201 created; a replay is 409 carrying the existing ID; 422 reused; 400 missing
	graphqlStyle    = "graphql"    // everything 200: data.createPayment on success, errors[0] with a code on failure
	stripeStyle     = "stripe"     // 200 {id} for created and replayed; 400 idempotency_error reused; no key: a plain create
)

// serveAPI starts the service on a loopback port over a new database and
// returns its URL and database URL.
func serveAPI(t *testing.T, style, bug string) (url, dbURL string) {
	t.Helper()
	dbURL = pgtest.NewDatabase(t, cluster)
	pool, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), `CREATE TABLE payments (id bigserial PRIMARY KEY, tenant text NOT NULL, idem_key text,
		body text NOT NULL, note text NOT NULL, UNIQUE (tenant, idem_key))`); err != nil {
		t.Fatal(err)
	}
	if bug == "stores-errors" {
		if _, err := pool.Exec(t.Context(), `CREATE TABLE saved_errors (tenant text NOT NULL, idem_key text NOT NULL, answer text NOT NULL,
			PRIMARY KEY (tenant, idem_key))`); err != nil {
			t.Fatal(err)
		}
	}
	if strings.HasPrefix(bug, "insert-then-500") || bug == "check-then-insert" {
		if _, err := pool.Exec(t.Context(), `ALTER TABLE payments DROP CONSTRAINT payments_tenant_idem_key_key`); err != nil {
			t.Fatal(err)
		}
	}
	base := apitest.Serve(t, &api{style: style, bug: bug, pool: pool})
	return base + "/v2/payments", dbURL
}

func (s *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v2/payments" && r.URL.Path != "/graphql" {
		s.fail(w, http.StatusNotFound, "NOT_FOUND")
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var payload struct {
		Note string `json:"note"`
		// A GraphQL request's fields are the mutation's variables.
		Variables struct {
			Input struct {
				Note string `json:"note"`
			} `json:"input"`
		} `json:"variables"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &payload)
	}
	if s.style == graphqlStyle {
		payload.Note = payload.Variables.Input.Note
	}
	if err != nil || payload.Note == "" {
		s.fail(w, http.StatusBadRequest, "INVALID_REQUEST_BODY")
		return
	}
	key, tenant := r.Header.Get("Idempotency-Key"), r.Header.Get("X-Tenant")
	if key == "" && s.style == stripeStyle {
		s.keyless(w, r, tenant, canonical(raw), payload.Note)
		return
	}
	if key == "" {
		s.fail(w, http.StatusBadRequest, "MISSING_REQUIRED_PARAMETER")
		return
	}
	body := canonical(raw)
	if s.bug == "insert-then-500-one-404" && s.served.Add(1) == notFoundAt {
		// Once, well after the first bug was found: a 404 (a proxy's
		// hiccup) that no state allows.
		s.fail(w, http.StatusNotFound, "NOT_FOUND")
		return
	}
	if strings.HasPrefix(s.bug, "insert-then-500") {
		// No idempotency at all, and every answer a 500: no call is ever ok.
		_, err := s.pool.Exec(r.Context(), `INSERT INTO payments (tenant, idem_key, body, note) VALUES ($1, $2, $3, $4)`, tenant, key, body, payload.Note)
		http.Error(w, fmt.Sprint("stored, then failed: ", err), http.StatusInternalServerError)
		return
	}
	if s.replaySaved(w, r, tenant, key) {
		return
	}
	id, replay, err := s.create(r.Context(), tenant, key, body, payload.Note)
	switch {
	case errors.Is(err, errReused):
		if s.bug == "changed-replayed" {
			s.created(w, id, true)
			return
		}
		s.fail(w, map[string]int{squareStyle: 400, gocardlessStyle: 422, graphqlStyle: 200, stripeStyle: 400}[s.style], "IDEMPOTENCY_KEY_REUSED")
	case err != nil && s.style == graphqlStyle:
		// A failed mutation is a 200 too (Shopify, Apollo).
		s.saveError(r, tenant, key)
		s.fail(w, http.StatusInternalServerError, "INTERNAL_SERVER_ERROR")
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		s.created(w, id, replay)
	}
}

// saveError is the stores-errors bug: a failed mutation's answer is kept
// under its key, as a middleware that caches every answer keeps it, so
// that retries get it again where the contract says errors are not stored.
func (s *api) saveError(r *http.Request, tenant, key string) {
	if s.bug != "stores-errors" {
		return
	}
	// The request's own session may be the one that failed: another one.
	_, _ = s.pool.Exec(context.WithoutCancel(r.Context()), `INSERT INTO saved_errors VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
		tenant, key, `{"data":{"createPayment":null},"errors":[{"message":"createPayment failed","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}`)
}

// replaySaved answers a key with a saved error (stores-errors) with it.
func (s *api) replaySaved(w http.ResponseWriter, r *http.Request, tenant, key string) bool {
	if s.bug != "stores-errors" {
		return false
	}
	var answer string
	if err := s.pool.QueryRow(r.Context(), `SELECT answer FROM saved_errors WHERE tenant = $1 AND idem_key = $2`, tenant, key).Scan(&answer); err != nil {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, answer)
	return true
}

var errReused = errors.New("key reused with another body")

// notFoundAt is the request insert-then-500-one-404 answers 404.
const notFoundAt = 150

// create inserts the key's row first; a key already there is a replay of
// an equal body and a reuse of another.
func (s *api) create(ctx context.Context, tenant, key, body, note string) (id int64, replay bool, err error) {
	if s.bug == "check-then-insert" {
		return s.checkThenInsert(ctx, tenant, key, body, note)
	}
	err = s.pool.QueryRow(ctx, `INSERT INTO payments (tenant, idem_key, body, note) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant, idem_key) DO NOTHING RETURNING id`, tenant, key, body, note).Scan(&id)
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, false, err
	}
	var stored string
	if err := s.pool.QueryRow(ctx, `SELECT id, body FROM payments WHERE tenant = $1 AND idem_key = $2`, tenant, key).Scan(&id, &stored); err != nil {
		return 0, false, err
	}
	if stored != body {
		return id, true, errReused
	}
	return id, true, nil
}

// checkThenInsert is the check-then-insert bug: it looks the key up, then
// inserts, with no constraint or lock between them, so two calls that
// arrive together both insert.
func (s *api) checkThenInsert(ctx context.Context, tenant, key, body, note string) (id int64, replay bool, err error) {
	var stored string
	err = s.pool.QueryRow(ctx, `SELECT id, body FROM payments WHERE tenant = $1 AND idem_key = $2 ORDER BY id LIMIT 1`, tenant, key).Scan(&id, &stored)
	switch {
	case err == nil && stored != body:
		return id, true, errReused
	case err == nil:
		return id, true, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return 0, false, err
	}
	err = s.pool.QueryRow(ctx, `INSERT INTO payments (tenant, idem_key, body, note) VALUES ($1, $2, $3, $4) RETURNING id`, tenant, key, body, note).Scan(&id)
	return id, false, err
}

func (s *api) created(w http.ResponseWriter, id int64, replay bool) {
	w.Header().Set("Content-Type", "application/json")
	pid := strconv.FormatInt(id, 10)
	switch {
	case s.style == squareStyle:
		fmt.Fprintf(w, `{"payment":{"id":%q,"status":"COMPLETED"}}`, pid)
	case s.style == graphqlStyle:
		fmt.Fprintf(w, `{"data":{"createPayment":{"id":%q}}}`, pid)
	case s.style == stripeStyle:
		fmt.Fprintf(w, `{"id":%q,"object":"payment_intent"}`, pid)
	case replay && s.bug == "replay-new-id":
		s.replayed(w, strconv.FormatInt(id+1000, 10))
	case replay:
		s.replayed(w, pid)
	default:
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"payments":{"id":%q}}`, pid)
	}
}

func (s *api) replayed(w http.ResponseWriter, pid string) {
	w.WriteHeader(http.StatusConflict)
	fmt.Fprintf(w, `{"error":{"code":409,"type":"invalid_state","errors":[{"reason":"idempotent_creation_conflict","links":{"conflicting_resource_id":%q}}]}}`, pid)
}

func (s *api) fail(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	if s.style == graphqlStyle {
		// Every GraphQL answer is a 200; what failed is in its errors.
		fmt.Fprintf(w, `{"data":{"createPayment":null},"errors":[{"message":"createPayment failed","extensions":{"code":%q}}]}`, code)
		return
	}
	w.WriteHeader(status)
	if s.style == stripeStyle {
		fmt.Fprintf(w, `{"error":{"type":"idempotency_error","code":%q}}`, strings.ToLower(code))
		return
	}
	if s.style == squareStyle {
		fmt.Fprintf(w, `{"errors":[{"category":"INVALID_REQUEST_ERROR","code":%q}]}`, code)
		return
	}
	fmt.Fprintf(w, `{"error":{"code":%d,"errors":[{"reason":%q}]}}`, status, strings.ToLower(code))
}

// canonical is a JSON body with key order, spacing, escapes and the
// spelling of numbers taken out.
func canonical(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// keyless is a call without a key where the key is optional (Stripe): a
// plain create of its own, its key column NULL. keyless-shared stores
// every keyless call under one empty key, so the later ones replay the
// first; keyless-no-rows answers without writing anything.
func (s *api) keyless(w http.ResponseWriter, r *http.Request, tenant, body, note string) {
	var id int64
	var err error
	switch s.bug {
	case "keyless-shared":
		id, _, err = s.create(r.Context(), tenant, "", body, note)
		if errors.Is(err, errReused) {
			err = nil // the same resource, whatever the body
		}
	case "keyless-no-rows":
		id = 1000000 + s.served.Add(1)
	default:
		err = s.pool.QueryRow(r.Context(), `INSERT INTO payments (tenant, body, note) VALUES ($1, $2, $3) RETURNING id`, tenant, body, note).Scan(&id)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.created(w, id, false)
}
