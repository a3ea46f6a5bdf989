package graphql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/apitest"
)

// graphqlSvc is a GraphQL payments API as Shopify's and Apollo's docs
// describe one: POST /graphql, every answer 200, a failure named in
// errors[0].extensions.code (BAD_USER_INPUT for an input it refuses,
// INTERNAL_SERVER_ERROR for a failed database write), the merchant in a
// header and an Idempotency-Key header. A refusal is not stored under
// the key: the corrected request with the same key goes through.
//
// Each call writes in two transactions, the payment, then its ledger
// entry, and is made correct by its key row: claimed first (in a
// transaction of its own: a concurrent duplicate sees it and is told
// IDEMPOTENCY_CONCURRENT_REQUEST), completed in the ledger's transaction,
// and, when a write fails, the payment deleted and the claim released
// before the error is answered, so that a failed call leaves nothing and
// its retry executes afresh. As a process (process_test.go), a crash
// between the two transactions leaves a payment and a claim: at start-up
// it undoes them the same way.
type graphqlSvc struct {
	pool *pgxpool.Pool
	// bug plants one mistake: check-then-insert (looks the key up, writes,
	// then records the key, with no constraint), tenant-leak (keys unique
	// across merchants: another merchant's call gets the first one's
	// payment), refusal-stored (the key is claimed before the input is
	// checked and the refusal stored under it: the corrected call is
	// refused forever), error-leaves-payment (a failed ledger write
	// releases the key but leaves the payment), keeps-claims (as a process,
	// its start-up recovery deletes the payments a crash cut off but keeps
	// their unfinished key claims: the key is in progress for ever).
	bug string
}

const graphqlSchema = `CREATE TABLE idempotency_keys (
	merchant text NOT NULL,
	key text NOT NULL,
	fingerprint text NOT NULL,
	payment_gid text,
	refusal text,
	done boolean NOT NULL DEFAULT false
);
CREATE TABLE payments (
	id bigserial PRIMARY KEY,
	gid text GENERATED ALWAYS AS ('gid://example/Payment/' || id) STORED,
	merchant text NOT NULL,
	idem_key text NOT NULL,
	amount bigint NOT NULL,
	currency text NOT NULL,
	note text NOT NULL
);
CREATE TABLE ledger (
	id bigserial PRIMARY KEY,
	merchant text NOT NULL,
	idem_key text NOT NULL,
	payment_gid text NOT NULL,
	amount bigint NOT NULL
)`

// graphqlKeys is the uniqueness each mode keeps (check-then-insert has none).
var graphqlKeys = map[string]string{"": "merchant, key", "tenant-leak": "key", "refusal-stored": "merchant, key",
	"error-leaves-payment": "merchant, key", "keeps-claims": "merchant, key"}

// graphqlDDL is the schema of mode bug, its keys' uniqueness included.
func graphqlDDL(bug string) string {
	if cols, ok := graphqlKeys[bug]; ok {
		return graphqlSchema + fmt.Sprintf(";\nCREATE UNIQUE INDEX idempotency_keys_key ON idempotency_keys (%s)", cols)
	}
	return graphqlSchema
}

// startGraphQL serves a graphqlSvc in mode bug over a new database and
// returns its base URL, its database URL and a pool over it.
func startGraphQL(t *testing.T, bug string) (string, string, *pgxpool.Pool) {
	t.Helper()
	pool, dbURL := apitest.Database(t, cluster, graphqlDDL(bug))
	return apitest.Serve(t, &graphqlSvc{pool: pool, bug: bug}), dbURL, pool
}

const paymentCreate = "mutation($input: PaymentInput!) { paymentCreate(input: $input) { payment { id } } }"

type paymentInput struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Note     string `json:"note"`
}

// gqlError is a GraphQL error to answer: its code and message.
type gqlError struct{ code, message string }

func (s *graphqlSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/graphql" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Query     string `json:"query"`
		Variables struct {
			Input json.RawMessage `json:"input"`
		} `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query != paymentCreate {
		graphqlAnswer(w, "", &gqlError{"GRAPHQL_VALIDATION_FAILED", "the request is not the paymentCreate mutation"})
		return
	}
	// Variables are coerced strictly: an unknown input field, a missing
	// input or a fraction for an Int is the user's input refused.
	var in paymentInput
	dec := json.NewDecoder(bytes.NewReader(req.Variables.Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		graphqlAnswer(w, "", &gqlError{"BAD_USER_INPUT", "Variable \"$input\" got invalid value: " + err.Error()})
		return
	}
	merchant, key := r.Header.Get("X-Merchant"), r.Header.Get("Idempotency-Key")
	refusal := in.invalid()
	if key == "" {
		refusal = "the Idempotency-Key header is required"
	}
	if refusal != "" && (s.bug != "refusal-stored" || key == "") {
		graphqlAnswer(w, "", &gqlError{"BAD_USER_INPUT", refusal})
		return
	}
	gid, gerr := s.pay(r.Context(), merchant, key, in, refusal)
	graphqlAnswer(w, gid, gerr)
}

func (in paymentInput) invalid() string {
	switch {
	case in.Amount < 1 || in.Amount > 1000000:
		return fmt.Sprintf("amount: %d is not between 1 and 1000000", in.Amount)
	case !slices.Contains([]string{"USD", "EUR"}, in.Currency):
		return fmt.Sprintf("currency: %q is not supported", in.Currency)
	case in.Note == "" || len(in.Note) > 40:
		return "note: must have 1 to 40 characters"
	}
	return ""
}

// graphqlAnswer answers 200 with the payment, or with the error.
func graphqlAnswer(w http.ResponseWriter, gid string, e *gqlError) {
	w.Header().Set("Content-Type", "application/json")
	if e != nil {
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"paymentCreate": nil}, "errors": []any{map[string]any{
			"message": e.message, "path": []string{"paymentCreate"}, "extensions": map[string]string{"code": e.code}}}})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"paymentCreate": map[string]any{"payment": map[string]string{"id": gid}}}})
}

// pay makes the payment and its ledger entry once per key, and answers
// the payment's ID, or the error to answer.
func (s *graphqlSvc) pay(ctx context.Context, merchant, key string, in paymentInput, refusal string) (string, *gqlError) {
	raw, _ := json.Marshal(in)
	fp := string(raw)
	var claimed bool
	if s.bug == "check-then-insert" {
		claimed = true // recorded after the writes, below
		if err := s.pool.QueryRow(ctx, `SELECT true FROM idempotency_keys WHERE merchant = $1 AND key = $2`, merchant, key).Scan(new(bool)); !errors.Is(err, pgx.ErrNoRows) {
			claimed = false
		}
	} else {
		err := s.pool.QueryRow(ctx, `INSERT INTO idempotency_keys (merchant, key, fingerprint) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING RETURNING true`, merchant, key, fp).Scan(&claimed)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return "", internal(err)
		}
	}
	if !claimed {
		return s.existing(ctx, merchant, key, fp)
	}
	if refusal != "" { // refusal-stored: the key was claimed before the input was checked
		_, _ = s.pool.Exec(ctx, `UPDATE idempotency_keys SET refusal = $3, done = true WHERE merchant = $1 AND key = $2`, merchant, key, refusal)
		return "", &gqlError{"BAD_USER_INPUT", refusal}
	}
	gid, err := s.write(ctx, merchant, key, in, fp)
	if err != nil {
		return "", internal(err)
	}
	return gid, nil
}

// existing answers a call whose key is claimed already: a replay, a
// reuse with another input, or a call of a key still in progress.
func (s *graphqlSvc) existing(ctx context.Context, merchant, key, fp string) (string, *gqlError) {
	q, args := `SELECT fingerprint, payment_gid, refusal, done FROM idempotency_keys WHERE merchant = $1 AND key = $2`, []any{merchant, key}
	if s.bug == "tenant-leak" {
		q, args = `SELECT fingerprint, payment_gid, refusal, done FROM idempotency_keys WHERE key = $1`, []any{key}
	}
	var stored string
	var gid, refusal *string
	var done bool
	switch err := s.pool.QueryRow(ctx, q, args...).Scan(&stored, &gid, &refusal, &done); {
	case errors.Is(err, pgx.ErrNoRows):
		// Released by a failed call since: the caller may try again.
		return "", &gqlError{"IDEMPOTENCY_CONCURRENT_REQUEST", "a request with this key was in progress; retry"}
	case err != nil:
		return "", internal(err)
	case refusal != nil:
		return "", &gqlError{"BAD_USER_INPUT", *refusal}
	case stored != fp:
		return "", &gqlError{"IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with another input"}
	case !done:
		return "", &gqlError{"IDEMPOTENCY_CONCURRENT_REQUEST", "a request with this Idempotency-Key is in progress"}
	}
	return *gid, nil
}

func internal(err error) *gqlError {
	return &gqlError{"INTERNAL_SERVER_ERROR", "paymentCreate failed: " + err.Error()}
}

// write makes the payment in one transaction and its ledger entry in a
// second, which completes the key; a failure of either undoes the payment
// and releases the key.
func (s *graphqlSvc) write(ctx context.Context, merchant, key string, in paymentInput, fp string) (string, error) {
	var gid string
	err := s.pool.QueryRow(ctx, `INSERT INTO payments (merchant, idem_key, amount, currency, note) VALUES ($1, $2, $3, $4, $5)
		RETURNING gid`, merchant, key, in.Amount, in.Currency, in.Note).Scan(&gid)
	if err == nil {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO ledger (merchant, idem_key, payment_gid, amount) VALUES ($1, $2, $3, $4)`, merchant, key, gid, in.Amount); err != nil {
				return err
			}
			var err error
			if s.bug == "check-then-insert" {
				_, err = tx.Exec(ctx, `INSERT INTO idempotency_keys (merchant, key, fingerprint, payment_gid, done) VALUES ($1, $2, $3, $4, true)`, merchant, key, fp, gid)
			} else {
				_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET payment_gid = $3, done = true WHERE merchant = $1 AND key = $2`, merchant, key, gid)
			}
			return err
		})
	}
	if err != nil {
		s.undo(ctx, merchant, key, gid)
		return "", err
	}
	return gid, nil
}

// recover undoes the calls a crash cut off between their transactions,
// at start-up, before any call: a claim never completed is released and
// the payment it made, if any, deleted, as a failed write is undone. (It
// assumes one replica: another's calls in progress would look the same.)
func (s *graphqlSvc) recover(ctx context.Context) error {
	if s.bug == "keeps-claims" {
		_, err := s.pool.Exec(ctx, `DELETE FROM payments p USING idempotency_keys k
			WHERE p.merchant = k.merchant AND p.idem_key = k.key AND NOT k.done`)
		return err
	}
	_, err := s.pool.Exec(ctx, `WITH stale AS (DELETE FROM idempotency_keys WHERE NOT done RETURNING merchant, key)
		DELETE FROM payments p USING stale WHERE p.merchant = stale.merchant AND p.idem_key = stale.key`)
	return err
}

// undo deletes what a failed call wrote (the payment, unless the bug
// leaves it) and releases its key, so that its retry executes afresh.
func (s *graphqlSvc) undo(ctx context.Context, merchant, key, gid string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if gid != "" && s.bug != "error-leaves-payment" {
		_, _ = s.pool.Exec(ctx, `DELETE FROM payments WHERE gid = $1`, gid)
	}
	_, _ = s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE merchant = $1 AND key = $2 AND NOT done`, merchant, key)
}
