package shapes_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/stress"
)

// refusingSvc validates its payload (an amount from 1 to 100000, a note
// that must be there) and, when store is set, saves a refusal under its
// key in PostgreSQL while the key is unused, replaying it to every later
// call of the key, as a service that stores every answer does.
type refusingSvc struct {
	store bool
	pool  *pgxpool.Pool
}

type refusingPayment struct {
	AmountCents int64   `json:"amount_cents"`
	Note        *string `json:"note"`
}

func (s *refusingSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
	fail := func(err error) { answer(http.StatusInternalServerError, fmt.Sprintf(`{"error":%q}`, err)) }
	var p refusingPayment
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		answer(http.StatusBadRequest, fmt.Sprintf(`{"error":%q}`, err))
		return
	}
	key, tenant := r.Header.Get("Idempotency-Key"), r.Header.Get("X-Tenant")
	if key == "" {
		answer(http.StatusBadRequest, `{"error":"an Idempotency-Key is required"}`)
		return
	}
	ctx := r.Context()
	if s.store {
		var status int
		var body string
		err := s.pool.QueryRow(ctx, `SELECT status, body FROM refusals WHERE tenant = $1 AND idem_key = $2`, tenant, key).Scan(&status, &body)
		if err == nil {
			answer(status, body)
			return
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			fail(err)
			return
		}
	}
	var problem string
	switch {
	case p.AmountCents < 1 || p.AmountCents > 100000:
		problem = "amount_cents must be from 1 to 100000"
	case p.Note == nil:
		problem = "note is required"
	}
	if problem != "" {
		body := fmt.Sprintf(`{"error":%q}`, problem)
		if s.store {
			// Saved only while the key names no payment: a refusal of a
			// used key's call changes nothing.
			if _, err := s.pool.Exec(ctx, `INSERT INTO refusals (tenant, idem_key, status, body)
				SELECT $1, $2, 400, $3 WHERE NOT EXISTS (SELECT 1 FROM payments WHERE tenant = $1 AND idem_key = $2)
				ON CONFLICT DO NOTHING`, tenant, key, body); err != nil {
				fail(err)
				return
			}
		}
		answer(http.StatusBadRequest, body)
		return
	}
	var id int64
	err := s.pool.QueryRow(ctx, `INSERT INTO payments (tenant, idem_key, amount_cents, note) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant, idem_key) DO NOTHING RETURNING id`, tenant, key, p.AmountCents, *p.Note).Scan(&id)
	if err == nil {
		answer(http.StatusCreated, fmt.Sprintf(`{"id":%d}`, id))
		return
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		fail(err)
		return
	}
	var amount int64
	var note string
	if err := s.pool.QueryRow(ctx, `SELECT id, amount_cents, note FROM payments WHERE tenant = $1 AND idem_key = $2`, tenant, key).
		Scan(&id, &amount, &note); err != nil {
		fail(err)
		return
	}
	if amount != p.AmountCents || note != *p.Note {
		answer(http.StatusUnprocessableEntity, `{"error":"key reused with another payload"}`)
		return
	}
	answer(http.StatusOK, fmt.Sprintf(`{"id":%d}`, id))
}

const refusingSchema = `CREATE TABLE payments (
	id bigserial PRIMARY KEY,
	tenant text NOT NULL,
	idem_key text NOT NULL,
	amount_cents bigint NOT NULL,
	note text NOT NULL,
	UNIQUE (tenant, idem_key));
CREATE TABLE refusals (
	tenant text NOT NULL,
	idem_key text NOT NULL,
	status int NOT NULL,
	body text NOT NULL,
	PRIMARY KEY (tenant, idem_key))`

const refusingContract = `target:
  url: %s/payments
  headers:
    Idempotency-Key: "{{key}}"
    X-Tenant: "{{tenant}}"
  id: /id
payload:
  amount_cents: 1250
  note: coffee
payload_rules:
  /amount_cents: {int: {min: 1, max: 100000}}
  /note: {required: true}
effects:
  - table: payments
    tenant: tenant
    key: idem_key
    id: id
    per_action: 1
    fields: {amount_cents: /amount_cents, note: /note}
`

// Refused, then fixed, on a service that validates before it stores:
// refusals not stored pass under not-stored and are IDEM-017 under stored;
// refusals stored (while the key is unused) pass under stored and are
// IDEM-017 under not-stored, shrunk to the refused call and the fixed one.
func TestRefusalPolicyRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		store  bool
		policy string
		fails  bool
	}{
		{store: false, policy: ""},
		{store: true, policy: "", fails: true},
		{store: true, policy: "refusals: stored\n"},
		{store: false, policy: "refusals: stored\n", fails: true},
	} {
		t.Run(fmt.Sprintf("store %v, %q", tc.store, tc.policy), func(t *testing.T) {
			url := pgtest.NewDatabase(t, cluster)
			pool, err := pgxpool.New(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			if _, err := pool.Exec(t.Context(), refusingSchema); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(&refusingSvc{store: tc.store, pool: pool})
			t.Cleanup(srv.Close)
			cfg, err := stress.Parse("refusing.yaml", []byte(fmt.Sprintf(refusingContract, srv.URL)+tc.policy))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DatabaseURL, cfg.Plans, cfg.Seed, cfg.MaxBugs = url, 100, 3, 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.fails {
				if res.Verdict != checks.Pass {
					logFailures(t, res)
					t.Fatalf("verdict %s (%v); want a pass", res.Verdict, res.Err)
				}
				if res.Coverage[coverage.RefusedThenFixed] == 0 || res.Statuses()[checks.RefusalReplay] != checks.Passed {
					t.Errorf("coverage %v, IDEM-017 %s; want refused-then-fixed calls and the check passed", res.Coverage, res.Statuses()[checks.RefusalReplay])
				}
				return
			}
			if res.Verdict != checks.Fail || res.Failures[0].Check != checks.RefusalReplay {
				logFailures(t, res)
				t.Fatalf("verdict %s (%v); want IDEM-017 first", res.Verdict, res.Err)
			}
			refused := call("A", "k1", 0)
			refused.Calls[0].Broken = 1
			want := model.Plan{Steps: []model.Step{refused, call("A", "k1", 0)}}
			if got := skeleton(res.Failures[0].Plan); got.String() != want.String() {
				t.Errorf("minimal plan\n%swant\n%s", res.Failures[0].Plan, want)
			}
		})
	}
}
