package graphql_test

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

// The GraphQL-like service under idemstress: correct, it passes
// apitest.Plans plans with every fault fired; each planted bug is one row,
// minimal.
func TestGraphQLLike(t *testing.T) {
	t.Parallel()
	a1 := stresstest.Call("A", "k1", 0)
	apitest.RunShape(t, apitest.ReadContract(t), func(t *testing.T, bug string) (string, string) {
		base, dbURL, _ := startGraphQL(t, bug)
		return base, dbURL
	}, []apitest.BugCase{
		{Bug: "check-then-insert", Want: checks.DuplicateEffect, Minimal: apitest.StepsOf(stresstest.Burst(a1, a1))},
		{Bug: "tenant-leak", Want: checks.TenantLeak, Minimal: apitest.StepsOf(a1, stresstest.Call("B", "k1", 0))},
		{Bug: "error-leaves-payment", Want: checks.MissingEffect, Minimal: apitest.StepsOf(stresstest.Faulted("A", "k1", model.FaultDBError))},
		// The refused call, then the fixed one with its key, answered the
		// stored refusal again under refusals: not-stored (which of the
		// payload rules it breaks is the search's pick).
		{Bug: "refusal-stored", Want: checks.RefusalReplay, Steps: 2},
	})
}

// The service itself, by plain requests, does what it documents: one
// payment per key and merchant, a refusal not stored, a failed write
// answered 200 INTERNAL_SERVER_ERROR with nothing left behind.
func TestGraphQLLikeService(t *testing.T) {
	base, _, pool := startGraphQL(t, "")
	send := func(base, merchant, key string, amount int, note string) apitest.Answer {
		h := map[string]string{"X-Merchant": merchant}
		if key != "" {
			h["Idempotency-Key"] = key
		}
		return apitest.Post(t, base+"/graphql", h, fmt.Sprintf(`{"query":%q,"variables":{"input":{"amount":%d,"currency":"USD","note":%q}}}`, paymentCreate, amount, note))
	}
	code := func(a apitest.Answer) string { return a.At("/errors/0/extensions/code") }
	rows := func(table string) int { return apitest.Count(t, pool, `SELECT count(*) FROM `+table) }

	for _, bad := range []struct {
		name, key string
		amount    int
	}{{"no key", "", 1250}, {"an amount of 0", "k1", 0}} {
		if a := send(base, "m1", bad.key, bad.amount, "coffee"); a.Status != 200 || code(a) != "BAD_USER_INPUT" {
			t.Errorf("%s: %d %s; want 200 BAD_USER_INPUT", bad.name, a.Status, a.Raw)
		}
	}
	first := send(base, "m1", "k1", 1250, "coffee")
	id := first.At("/data/paymentCreate/payment/id")
	if first.Status != 200 || id == "" || code(first) != "" {
		t.Fatalf("the fixed call after a refusal: %d %s; want the payment made", first.Status, first.Raw)
	}
	if a := send(base, "m1", "k1", 1250, "coffee"); a.At("/data/paymentCreate/payment/id") != id {
		t.Errorf("retry: %s; want payment %s", a.Raw, id)
	}
	if a := send(base, "m1", "k1", 1300, "coffee"); code(a) != "IDEMPOTENCY_KEY_REUSED" {
		t.Errorf("changed amount: %s; want IDEMPOTENCY_KEY_REUSED", a.Raw)
	}
	if a := send(base, "m2", "k1", 1250, "coffee"); a.At("/data/paymentCreate/payment/id") == id {
		t.Errorf("another merchant's key answered the first merchant's payment")
	}
	if _, err := pool.Exec(t.Context(), `INSERT INTO idempotency_keys (merchant, key, fingerprint) VALUES ('m1', 'k2', '{"amount":1250,"currency":"USD","note":"coffee"}')`); err != nil {
		t.Fatal(err)
	}
	if a := send(base, "m1", "k2", 1250, "coffee"); code(a) != "IDEMPOTENCY_CONCURRENT_REQUEST" {
		t.Errorf("a key in progress: %s; want IDEMPOTENCY_CONCURRENT_REQUEST", a.Raw)
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
	if a := send(base, "m1", "k3", 1250, "coffee"); a.Status != 200 || code(a) != "INTERNAL_SERVER_ERROR" {
		t.Errorf("a failed ledger write: %d %s; want 200 INTERNAL_SERVER_ERROR", a.Status, a.Raw)
	}
	failLedger(pool, false)
	if p, k := rows("payments"), apitest.Count(t, pool, `SELECT count(*) FROM idempotency_keys WHERE key = 'k3'`); p != 2 || k != 0 {
		t.Errorf("after the failure: %d payments (want 2), %d key rows of k3 (want 0)", p, k)
	}
	if a := send(base, "m1", "k3", 1250, "coffee"); a.At("/data/paymentCreate/payment/id") == "" || rows("ledger") != 3 {
		t.Errorf("the retry of the failed call: %s; want the payment made, with its ledger entry", a.Raw)
	}

	stored, _, _ := startGraphQL(t, "refusal-stored")
	send(stored, "m1", "k1", 0, "coffee")
	if a := send(stored, "m1", "k1", 1250, "coffee"); code(a) != "BAD_USER_INPUT" {
		t.Errorf("refusal-stored: the fixed call got %s; want the bug to refuse it again", a.Raw)
	}
	leaves, _, leavesPool := startGraphQL(t, "error-leaves-payment")
	failLedger(leavesPool, true)
	send(leaves, "m1", "k1", 1250, "coffee")
	if n := apitest.Count(t, leavesPool, `SELECT count(*) FROM payments`); n != 1 {
		t.Errorf("error-leaves-payment: %d payments after the failure; want the bug to leave 1", n)
	}
}
