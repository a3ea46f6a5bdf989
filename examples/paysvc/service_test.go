package paysvc_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/paysvc"
)

// A new key answers 200 with the payment, as stored.
func TestCreateAnswersThePayment(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	a := e.mustPay("m1", "k1", 1250, "coffee")
	if a.status != http.StatusOK {
		t.Fatalf("create answered %d %s, want 200", a.status, a.body)
	}
	var got struct {
		Payment struct {
			ID          string `json:"id"`
			MerchantID  string `json:"merchant_id"`
			AmountMoney struct {
				Amount   int64  `json:"amount"`
				Currency string `json:"currency"`
			} `json:"amount_money"`
			SourceID  string `json:"source_id"`
			Note      string `json:"note"`
			Status    string `json:"status"`
			CreatedAt string `json:"created_at"`
		} `json:"payment"`
	}
	if err := json.Unmarshal([]byte(a.body), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Payment
	if p.MerchantID != "m1" || p.AmountMoney.Amount != 1250 || p.AmountMoney.Currency != "USD" ||
		p.SourceID != "cnon:card-nonce-ok" || p.Note != "coffee" || p.Status != "COMPLETED" || p.CreatedAt == "" {
		t.Errorf("payment %+v", p)
	}
	var id string
	var amount int64
	err := e.pool.QueryRow(t.Context(), `SELECT id::text, amount FROM payments WHERE merchant = 'm1' AND idempotency_key = 'k1'`).Scan(&id, &amount)
	if err != nil || id != p.ID || amount != 1250 {
		t.Errorf("stored payment %s amount %d (err %v), answered %s", id, amount, err, p.ID)
	}
	e.wantRows("m1", "k1", 1, 1)
}

// Every refusal is a 400 (or 404, 405, 413) with its code and field, and
// writes nothing.
func TestRefusals(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	long := strings.Repeat("k", 256)
	for _, tt := range []struct {
		name, body  string
		code, field string
	}{
		{"no key", payBody("", 1250, ""), "MISSING_REQUIRED_PARAMETER", "idempotency_key"},
		{"empty key", payBody("", 1250, "")[:1] + `"idempotency_key": "", ` + payBody("", 1250, "")[1:], "MISSING_REQUIRED_PARAMETER", "idempotency_key"},
		{"null key", `{"idempotency_key": null, "amount_money": {"amount": 1, "currency": "USD"}, "source_id": "s"}`, "MISSING_REQUIRED_PARAMETER", "idempotency_key"},
		{"key too long", payBody(long, 1250, ""), "INVALID_VALUE", "idempotency_key"},
		{"key with NUL", `{"idempotency_key": "k\u0000", "amount_money": {"amount": 1, "currency": "USD"}, "source_id": "s"}`, "INVALID_VALUE", "idempotency_key"},
		{"amount 1250.0", `{"idempotency_key": "k", "amount_money": {"amount": 1250.0, "currency": "USD"}, "source_id": "s"}`, "INVALID_VALUE", "amount_money.amount"},
		{"amount 1.25e3", `{"idempotency_key": "k", "amount_money": {"amount": 1.25e3, "currency": "USD"}, "source_id": "s"}`, "INVALID_VALUE", "amount_money.amount"},
		{"amount a string", `{"idempotency_key": "k", "amount_money": {"amount": "1250", "currency": "USD"}, "source_id": "s"}`, "INVALID_VALUE", "amount_money.amount"},
		{"amount 0", payBody("k", 0, ""), "INVALID_VALUE", "amount_money.amount"},
		{"amount too big", payBody("k", 100_000_001, ""), "INVALID_VALUE", "amount_money.amount"},
		{"no amount", `{"idempotency_key": "k", "amount_money": {"currency": "USD"}, "source_id": "s"}`, "MISSING_REQUIRED_PARAMETER", "amount_money.amount"},
		{"no amount_money", `{"idempotency_key": "k", "source_id": "s"}`, "MISSING_REQUIRED_PARAMETER", "amount_money"},
		{"currency not in the enum", `{"idempotency_key": "k", "amount_money": {"amount": 1, "currency": "XYZ"}, "source_id": "s"}`, "INVALID_VALUE", "amount_money.currency"},
		{"no currency", `{"idempotency_key": "k", "amount_money": {"amount": 1}, "source_id": "s"}`, "MISSING_REQUIRED_PARAMETER", "amount_money.currency"},
		{"no source_id", `{"idempotency_key": "k", "amount_money": {"amount": 1, "currency": "USD"}}`, "MISSING_REQUIRED_PARAMETER", "source_id"},
		{"note too long", payBody("k", 1, strings.Repeat("é", 501)), "INVALID_VALUE", "note"},
		{"unknown field", `{"idempotency_key": "k", "amount_money": {"amount": 1, "currency": "USD"}, "source_id": "s", "tip": 1}`, "BAD_REQUEST", "tip"},
		{"unknown nested field", `{"idempotency_key": "k", "amount_money": {"amount": 1, "currency": "USD", "cents": 1}, "source_id": "s"}`, "BAD_REQUEST", "cents"},
		{"not JSON", `{"idempotency_key": "k",`, "BAD_REQUEST", ""},
		{"data after the object", payBody("k", 1, "") + ` {}`, "BAD_REQUEST", ""},
		{"an array", `[]`, "BAD_REQUEST", ""},
		{"invalid UTF-8", "{\"idempotency_key\": \"k\xff\", \"amount_money\": {\"amount\": 1, \"currency\": \"USD\"}, \"source_id\": \"s\"}", "BAD_REQUEST", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := e.mustPost("m1", nil, tt.body)
			if a.status != http.StatusBadRequest || a.code != tt.code || a.field != tt.field {
				t.Errorf("answered %d %s, want 400 with code %s and field %q", a.status, a.body, tt.code, tt.field)
			}
		})
	}
	if p, l, k := e.total(); p+l+k != 0 {
		t.Errorf("refused calls wrote %d payments, %d ledger entries, %d keys", p, l, k)
	}
	// A note of 500 characters is taken.
	if a := e.mustPay("m1", "k", 1, strings.Repeat("é", 500)); a.status != http.StatusOK {
		t.Errorf("note of 500 characters answered %d %s", a.status, a.body)
	}
}

func TestOtherRoutes(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	for _, tt := range []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodGet, "/v2/merchants/m1/payments", http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
		{http.MethodPost, "/v2/payments", http.StatusNotFound, "NOT_FOUND"},
		{http.MethodPost, "/v2/merchants//payments", http.StatusNotFound, "NOT_FOUND"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), tt.method, e.url+tt.path, strings.NewReader(payBody("k", 1, "")))
		if err != nil {
			t.Fatal(err)
		}
		a, err := e.do(req)
		if err != nil || a.status != tt.status || a.code != tt.code {
			t.Errorf("%s %s answered %d %s (%v), want %d %s", tt.method, tt.path, a.status, a.body, err, tt.status, tt.code)
		}
	}
}

// A body over the limit is refused with 413, not read whole.
func TestBodyLimit(t *testing.T) {
	e := newEnv(t, paysvc.Options{})
	a := e.mustPost("m1", nil, payBody("k", 1, strings.Repeat("x", 70_000)))
	if a.status != http.StatusRequestEntityTooLarge || a.code != "BAD_REQUEST" {
		t.Errorf("answered %d %s, want 413", a.status, a.body)
	}
}
