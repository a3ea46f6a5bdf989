package shapes_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/stress"
)

// typedSvc is a payments service of another shape than the sample, written
// as a Go developer would: a strictly typed decoder (int64 amounts, unknown
// fields refused), the key in a header the test names or in the JSON body
// (Square's idempotency_key), amounts kept in a
// numeric(12,2) column, the key row inserted first (correct under bursts).
type typedSvc struct {
	// keyHeader names the key's header; "": the key is the body's
	// idempotency_key.
	keyHeader string
	// form reads the body as application/x-www-form-urlencoded (Stripe),
	// as strictly: integer amounts, no unknown fields.
	form bool
	// bug, when set, plants one mistake: "no-payload-check" replays a
	// changed payload.
	bug  string
	pool *pgxpool.Pool
}

type payment struct {
	AmountCents    int64  `json:"amount_cents"`
	Note           string `json:"note"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

func (s *typedSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	p, err := s.decode(r)
	if err != nil {
		answer(http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	key, tenant := p.IdempotencyKey, r.Header.Get("X-Tenant")
	if s.keyHeader != "" {
		key = r.Header.Get(s.keyHeader)
	}
	p.IdempotencyKey = ""
	if key == "" {
		answer(http.StatusBadRequest, map[string]string{"error": "an idempotency key is required"})
		return
	}
	ctx := r.Context()
	var id int64
	err = s.pool.QueryRow(ctx, `INSERT INTO payments (tenant, idem_key, amount_cents, note) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant, idem_key) DO NOTHING RETURNING id`, tenant, key, p.AmountCents, p.Note).Scan(&id)
	if err == nil {
		answer(http.StatusCreated, map[string]int64{"id": id})
		return
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		answer(http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	var stored payment
	if err := s.pool.QueryRow(ctx, `SELECT id, amount_cents::bigint, note FROM payments WHERE tenant = $1 AND idem_key = $2`, tenant, key).
		Scan(&id, &stored.AmountCents, &stored.Note); err != nil {
		answer(http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	if stored != p && s.bug != "no-payload-check" {
		answer(http.StatusUnprocessableEntity, map[string]string{"error": "key reused with another payload"})
		return
	}
	answer(http.StatusOK, map[string]int64{"id": id})
}

func (s *typedSvc) decode(r *http.Request) (payment, error) {
	var p payment
	if !s.form {
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		return p, dec.Decode(&p)
	}
	if err := r.ParseForm(); err != nil {
		return p, err
	}
	for name := range r.PostForm {
		if name != "amount_cents" && name != "note" && name != "idempotency_key" {
			return p, fmt.Errorf("unknown field %q", name)
		}
	}
	amount, err := strconv.ParseInt(r.PostForm.Get("amount_cents"), 10, 64)
	if err != nil {
		return p, fmt.Errorf("amount_cents: %w", err)
	}
	return payment{AmountCents: amount, Note: r.PostForm.Get("note"), IdempotencyKey: r.PostForm.Get("idempotency_key")}, nil
}

const typedSchema = `CREATE TABLE payments (
	id bigserial PRIMARY KEY,
	tenant text NOT NULL,
	idem_key text NOT NULL,
	amount_cents numeric(12,2) NOT NULL,
	note text NOT NULL,
	UNIQUE (tenant, idem_key))`

// typedContract is the contract a user would write for typedSvc; extra is
// appended to it.
const typedContract = `target:
  url: %s/payments
  headers:
    X-Tenant: "{{tenant}}"
%s  id: /id
payload:
  amount_cents: 1250
  note: coffee
%spayload_rules:
  /amount_cents: {int: {min: 1, max: 100000}}
effects:
  - table: payments
    tenant: tenant
    key: idem_key
    id: id
    per_action: 1
    fields: {amount_cents: /amount_cents, note: /note}
`

// startTyped serves a typedSvc over a new database and returns the
// Config of its contract (with extra appended) for plans plans.
func startTyped(t *testing.T, svc *typedSvc, extra string, plans int) stress.Config {
	t.Helper()
	url := pgtest.NewDatabase(t, cluster)
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), typedSchema); err != nil {
		t.Fatal(err)
	}
	svc.pool = pool
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	header, field := "", "  idempotency_key: \"{{key}}\"\n"
	if svc.keyHeader != "" {
		header, field = "    "+svc.keyHeader+": \"{{key}}\"\n", ""
	}
	if svc.form {
		header += "  body: form\n"
	}
	cfg, err := stress.Parse("typed.yaml", []byte(fmt.Sprintf(typedContract, srv.URL, header, field)+extra))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.Plans, cfg.Seed = url, plans, 7
	return cfg
}

// logFailures shows what a run found, for a test that did not want it.
func logFailures(t *testing.T, res *stress.Result) {
	t.Helper()
	for _, f := range res.Failures {
		var b bytes.Buffer
		for _, v := range f.Violations {
			fmt.Fprintf(&b, "\n  %s: %s", v.Message, v.Detail)
		}
		t.Logf("%s %s%s", f.Check, strings.TrimSpace(f.Plan.String()), b.String())
	}
}
