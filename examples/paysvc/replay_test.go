package paysvc_test

import (
	"net/http"
	"testing"

	"github.com/idemstress/idemstress/examples/paysvc"
)

// A retry of a request answers what the first call did, byte for byte,
// and writes nothing: one payment, one ledger entry, one key.
func TestReplayIsTheSameAnswer(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	first := e.mustPay("m1", "k1", 1250, "coffee")
	if first.status != http.StatusOK {
		t.Fatalf("create answered %d %s", first.status, first.body)
	}
	for i := range 3 {
		again := e.mustPay("m1", "k1", 1250, "coffee")
		if again.status != http.StatusOK || again.body != first.body {
			t.Fatalf("retry %d answered %d %s, want 200 %s", i, again.status, again.body, first.body)
		}
	}
	e.wantRows("m1", "k1", 1, 1)
	if p, l, k := e.total(); p != 1 || l != 1 || k != 1 {
		t.Errorf("%d payments, %d ledger entries, %d keys; want 1 each", p, l, k)
	}
}

// Requests are compared by their canonical JSON value without the key:
// key order, whitespace and string escapes do not make another request.
func TestReplayOfAReencodedRequest(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	first := e.mustPost("m1", nil, `{"idempotency_key":"k1","amount_money":{"amount":1250,"currency":"USD"},"source_id":"cnon:card-nonce-ok","note":"café"}`)
	if first.status != http.StatusOK {
		t.Fatalf("create answered %d %s", first.status, first.body)
	}
	for _, body := range []string{
		`{"note":"café","source_id":"cnon:card-nonce-ok","amount_money":{"currency":"USD","amount":1250},"idempotency_key":"k1"}`,
		"{ \"idempotency_key\" : \"k1\",\n\t\"amount_money\": { \"amount\": 1250, \"currency\": \"USD\" },\n \"source_id\": \"cnon:card-nonce-ok\", \"note\": \"caf\\u00e9\" }",
		`{"idempotency_key":"\u006b1","amount_money":{"amount":1250,"currency":"\u0055SD"},"source_id":"cnon:card-nonce-ok","note":"café"}`,
	} {
		if a := e.mustPost("m1", nil, body); a.status != http.StatusOK || a.body != first.body {
			t.Errorf("%s answered %d %s, want the replay %s", body, a.status, a.body, first.body)
		}
	}
	e.wantRows("m1", "k1", 1, 1)
}

// A key reused with another request is refused, 400 IDEMPOTENCY_KEY_REUSED,
// whatever field differs, and writes nothing; the first request still
// replays.
func TestReusedKeyIsRefused(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	first := e.mustPay("m1", "k1", 1250, "coffee")
	for _, body := range []string{
		payBody("k1", 1251, "coffee"),
		payBody("k1", 1250, "tea"),
		payBody("k1", 1250, ""),
		`{"idempotency_key":"k1","amount_money":{"amount":1250,"currency":"EUR"},"source_id":"cnon:card-nonce-ok","note":"coffee"}`,
		`{"idempotency_key":"k1","amount_money":{"amount":1250,"currency":"USD"},"source_id":"cnon:other","note":"coffee"}`,
	} {
		if a := e.mustPost("m1", nil, body); a.status != http.StatusBadRequest || a.code != "IDEMPOTENCY_KEY_REUSED" {
			t.Errorf("%s answered %d %s, want 400 IDEMPOTENCY_KEY_REUSED", body, a.status, a.body)
		}
	}
	if a := e.mustPay("m1", "k1", 1250, "coffee"); a.body != first.body {
		t.Errorf("the first request after the refusals answered %s, want %s", a.body, first.body)
	}
	e.wantRows("m1", "k1", 1, 1)
}

// Keys are scoped per merchant: another merchant's call with the same key
// is another payment.
func TestKeysArePerMerchant(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	a := e.mustPay("m1", "k1", 1250, "")
	b := e.mustPay("m2", "k1", 1250, "")
	if a.status != http.StatusOK || b.status != http.StatusOK || a.id == b.id {
		t.Fatalf("m1 answered %d %s, m2 %d %s: want two payments", a.status, a.body, b.status, b.body)
	}
	e.wantRows("m1", "k1", 1, 1)
	e.wantRows("m2", "k1", 1, 1)
}

// With -key-header X-Request-Id the key travels in that header; the body
// has no idempotency_key, and the header's absence is the missing key.
func TestKeyHeader(t *testing.T) {
	e := newEnv(t, paysvc.Options{KeyHeader: "X-Request-Id"})
	first := e.mustPay("m1", "k1", 1250, "")
	if first.status != http.StatusOK {
		t.Fatalf("create answered %d %s", first.status, first.body)
	}
	if a := e.mustPay("m1", "k1", 1250, ""); a.body != first.body {
		t.Errorf("retry answered %d %s, want %s", a.status, a.body, first.body)
	}
	if a := e.mustPay("m1", "k1", 99, ""); a.status != http.StatusBadRequest || a.code != "IDEMPOTENCY_KEY_REUSED" {
		t.Errorf("reused key answered %d %s", a.status, a.body)
	}
	if a := e.mustPay("m1", "", 1250, ""); a.status != http.StatusBadRequest || a.code != "MISSING_REQUIRED_PARAMETER" || a.field != "X-Request-Id" {
		t.Errorf("no header answered %d %s, want 400 MISSING_REQUIRED_PARAMETER for X-Request-Id", a.status, a.body)
	}
	if a := e.mustPost("m1", http.Header{"X-Request-Id": {"k2"}}, payBody("k2", 1250, "")); a.status != http.StatusBadRequest || a.code != "BAD_REQUEST" || a.field != "idempotency_key" {
		t.Errorf("key in the body too answered %d %s, want 400 BAD_REQUEST", a.status, a.body)
	}
	if a := e.mustPost("m1", http.Header{"X-Request-Id": {"k3", "k4"}}, payBody("", 1250, "")); a.status != http.StatusBadRequest || a.code != "BAD_REQUEST" {
		t.Errorf("two headers answered %d %s, want 400 BAD_REQUEST", a.status, a.body)
	}
	e.wantRows("m1", "k1", 1, 1)
	if p, _, _ := e.total(); p != 1 {
		t.Errorf("%d payments, want 1", p)
	}
}

// In the default mode an X-Request-Id header is tracing, nothing more: a
// retry with another one replays.
func TestRequestIDIsNotTheKeyByDefault(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	first := e.mustPost("m1", http.Header{"X-Request-Id": {"r1"}}, payBody("k1", 1250, ""))
	again := e.mustPost("m1", http.Header{"X-Request-Id": {"r2"}}, payBody("k1", 1250, ""))
	if first.status != http.StatusOK || again.body != first.body {
		t.Errorf("answered %d %s then %d %s, want one payment replayed", first.status, first.body, again.status, again.body)
	}
}
