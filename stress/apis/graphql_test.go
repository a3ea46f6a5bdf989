package apis_test

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// The GraphQL-like service under idemstress: correct, it passes 100 plans
// with every fault fired; each planted bug is one row, minimal.
func TestGraphQLLike(t *testing.T) {
	a1 := call("A", "k1", 0)
	runShape(t, graphqlContract, func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startGraphQL(t, bug)
		return base, dbURL
	}, []bugCase{
		{bug: "check-then-insert", want: checks.DuplicateEffect, minimal: stepsOf(burst(a1, a1))},
		{bug: "tenant-leak", want: checks.TenantLeak, minimal: stepsOf(a1, call("B", "k1", 0))},
		{bug: "error-leaves-payment", want: checks.MissingEffect, minimal: stepsOf(faulted("A", "k1", model.FaultDBError))},
		// The refused call, then the fixed one with its key: the fixed call
		// answered BAD_USER_INPUT is an answer no state allows. (How a
		// plan writes a refused call comes with refusals:.)
		{bug: "refusal-stored", want: checks.WrongStatus, steps: 2},
	})
}

// The service itself, by plain requests, does what it documents: one
// payment per key and merchant, a refusal not stored, a failed write
// answered 200 INTERNAL_SERVER_ERROR with nothing left behind.
func TestGraphQLLikeService(t *testing.T) {
	base, _, pool := startGraphQL(t, "")
	send := func(base, merchant, key string, amount int, note string) answer {
		h := map[string]string{"X-Merchant": merchant}
		if key != "" {
			h["Idempotency-Key"] = key
		}
		return post(t, base+"/graphql", h, fmt.Sprintf(`{"query":%q,"variables":{"input":{"amount":%d,"currency":"USD","note":%q}}}`, paymentCreate, amount, note))
	}
	code := func(a answer) string { return a.at("/errors/0/extensions/code") }
	rows := func(table string) int { return count(t, pool, `SELECT count(*) FROM `+table) }

	for _, bad := range []struct {
		name, key string
		amount    int
	}{{"no key", "", 1250}, {"an amount of 0", "k1", 0}} {
		if a := send(base, "m1", bad.key, bad.amount, "coffee"); a.status != 200 || code(a) != "BAD_USER_INPUT" {
			t.Errorf("%s: %d %s; want 200 BAD_USER_INPUT", bad.name, a.status, a.raw)
		}
	}
	first := send(base, "m1", "k1", 1250, "coffee")
	id := first.at("/data/paymentCreate/payment/id")
	if first.status != 200 || id == "" || code(first) != "" {
		t.Fatalf("the fixed call after a refusal: %d %s; want the payment made", first.status, first.raw)
	}
	if a := send(base, "m1", "k1", 1250, "coffee"); a.at("/data/paymentCreate/payment/id") != id {
		t.Errorf("retry: %s; want payment %s", a.raw, id)
	}
	if a := send(base, "m1", "k1", 1300, "coffee"); code(a) != "IDEMPOTENCY_KEY_REUSED" {
		t.Errorf("changed amount: %s; want IDEMPOTENCY_KEY_REUSED", a.raw)
	}
	if a := send(base, "m2", "k1", 1250, "coffee"); a.at("/data/paymentCreate/payment/id") == id {
		t.Errorf("another merchant's key answered the first merchant's payment")
	}
	if _, err := pool.Exec(t.Context(), `INSERT INTO idempotency_keys (merchant, key, fingerprint) VALUES ('m1', 'k2', '{"amount":1250,"currency":"USD","note":"coffee"}')`); err != nil {
		t.Fatal(err)
	}
	if a := send(base, "m1", "k2", 1250, "coffee"); code(a) != "IDEMPOTENCY_CONCURRENT_REQUEST" {
		t.Errorf("a key in progress: %s; want IDEMPOTENCY_CONCURRENT_REQUEST", a.raw)
	}
	if p, l := rows("payments"), rows("ledger"); p != 2 || l != 2 {
		t.Errorf("%d payments, %d ledger entries; want 2 of each", p, l)
	}

	// A failed second transaction: 200 INTERNAL_SERVER_ERROR, the payment
	// undone and the key released, so that the retry goes through.
	failLedger := func(pool *pgxpool.Pool, fail bool) {
		from, to := "ledger", "ledger_gone"
		if !fail {
			from, to = to, from
		}
		if _, err := pool.Exec(t.Context(), `ALTER TABLE `+from+` RENAME TO `+to); err != nil {
			t.Fatal(err)
		}
	}
	failLedger(pool, true)
	if a := send(base, "m1", "k3", 1250, "coffee"); a.status != 200 || code(a) != "INTERNAL_SERVER_ERROR" {
		t.Errorf("a failed ledger write: %d %s; want 200 INTERNAL_SERVER_ERROR", a.status, a.raw)
	}
	failLedger(pool, false)
	if p, k := rows("payments"), count(t, pool, `SELECT count(*) FROM idempotency_keys WHERE key = 'k3'`); p != 2 || k != 0 {
		t.Errorf("after the failure: %d payments (want 2), %d key rows of k3 (want 0)", p, k)
	}
	if a := send(base, "m1", "k3", 1250, "coffee"); a.at("/data/paymentCreate/payment/id") == "" || rows("ledger") != 3 {
		t.Errorf("the retry of the failed call: %s; want the payment made, with its ledger entry", a.raw)
	}

	stored, _, _ := startGraphQL(t, "refusal-stored")
	send(stored, "m1", "k1", 0, "coffee")
	if a := send(stored, "m1", "k1", 1250, "coffee"); code(a) != "BAD_USER_INPUT" {
		t.Errorf("refusal-stored: the fixed call got %s; want the bug to refuse it again", a.raw)
	}
	leaves, _, leavesPool := startGraphQL(t, "error-leaves-payment")
	failLedger(leavesPool, true)
	send(leaves, "m1", "k1", 1250, "coffee")
	if n := count(t, leavesPool, `SELECT count(*) FROM payments`); n != 1 {
		t.Errorf("error-leaves-payment: %d payments after the failure; want the bug to leave 1", n)
	}
}
