package paysvc_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/stress"
	"go.yaml.in/yaml/v3"
)

// Both contracts are valid, their target is the service's, and the key
// travels where the mode reads it: in the body, or in X-Request-Id.
func TestContractParses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		contract []byte
		keyIn    string
	}{
		{"contract.yaml", paysvc.Contract, `idempotency_key: "{{key}}"`},
		{"contract_request_id.yaml", paysvc.ContractRequestID, `X-Request-Id: "{{key}}"`},
	} {
		c, err := stress.Parse(tc.name, tc.contract)
		if err != nil {
			t.Fatal(err)
		}
		if c.HTTP.URL != "http://127.0.0.1:8080/v2/merchants/{{tenant}}/payments" {
			t.Errorf("%s: target URL %q", tc.name, c.HTTP.URL)
		}
		for _, mark := range []string{tc.keyIn, "IDEMPOTENCY_KEY_REUSED", "MISSING_REQUIRED_PARAMETER", "IDEMPOTENCY_KEY_IN_USE"} {
			if !strings.Contains(string(tc.contract), mark) {
				t.Errorf("%s does not mention %s", tc.name, mark)
			}
		}
	}
}

// The OpenAPI document's limits, enums and codes are the code's: each
// is read from the document and sent to the service, just inside and just
// outside it.
func TestOpenAPIMatchesTheService(t *testing.T) {
	var doc struct {
		Paths      map[string]map[string]any `yaml:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum      []string `yaml:"enum"`
					Minimum   *int64   `yaml:"minimum"`
					Maximum   *int64   `yaml:"maximum"`
					MaxLength *int     `yaml:"maxLength"`
				} `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(paysvc.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Paths["/v2/merchants/{merchant}/payments"]["post"]; !ok {
		t.Fatalf("openapi.yaml has no POST /v2/merchants/{merchant}/payments: %v", doc.Paths)
	}
	money := doc.Components.Schemas["Money"].Properties
	req := doc.Components.Schemas["CreatePaymentRequest"].Properties
	if got := money["currency"].Enum; !slices.Equal(got, paysvc.Currencies) {
		t.Errorf("currency enum %q, the service takes %q", got, paysvc.Currencies)
	}
	if money["amount"].Minimum == nil || money["amount"].Maximum == nil || req["note"].MaxLength == nil ||
		req["source_id"].MaxLength == nil || req["idempotency_key"].MaxLength == nil {
		t.Fatal("openapi.yaml lacks a limit of amount, note, source_id or idempotency_key")
	}
	e := newEnv(t, paysvc.Options{})
	lo, hi := *money["amount"].Minimum, *money["amount"].Maximum
	for _, tt := range []struct {
		name string
		body string
		ok   bool
	}{
		{"amount minimum", payBody("a1", lo, ""), true},
		{"amount below", payBody("a2", lo-1, ""), false},
		{"amount maximum", payBody("a3", hi, ""), true},
		{"amount above", payBody("a4", hi+1, ""), false},
		{"note at maxLength", payBody("n1", 1, strings.Repeat("n", *req["note"].MaxLength)), true},
		{"note over", payBody("n2", 1, strings.Repeat("n", *req["note"].MaxLength+1)), false},
		{"source_id at maxLength", sourceBody("s1", strings.Repeat("s", *req["source_id"].MaxLength)), true},
		{"source_id over", sourceBody("s2", strings.Repeat("s", *req["source_id"].MaxLength+1)), false},
		{"key at maxLength", payBody(strings.Repeat("k", *req["idempotency_key"].MaxLength), 1, ""), true},
		{"key over", payBody(strings.Repeat("k", *req["idempotency_key"].MaxLength+1), 1, ""), false},
	} {
		a := e.mustPost("m1", nil, tt.body)
		if got := a.status == 200; got != tt.ok {
			t.Errorf("%s: answered %d %s", tt.name, a.status, a.body)
		}
	}
	codes := doc.Components.Schemas["Error"].Properties["code"].Enum
	for _, code := range []string{"IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE", "MISSING_REQUIRED_PARAMETER", "INVALID_VALUE", "BAD_REQUEST"} {
		if !slices.Contains(codes, code) {
			t.Errorf("openapi.yaml's error codes %q lack %s", codes, code)
		}
	}
}

func sourceBody(key, source string) string {
	return `{"idempotency_key": "` + key + `", "amount_money": {"amount": 1, "currency": "USD"}, "source_id": "` + source + `"}`
}

// The contract's effect tables and columns are the schema's, and every
// search idemstress makes in them is served by an index.
func TestContractMatchesTheSchema(t *testing.T) {
	c, err := stress.Parse("contract.yaml", paysvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	pool := connect(t)
	c.DatabaseURL = pool.Config().ConnString()
	s, err := stress.Open(t.Context(), c)
	if err != nil {
		t.Fatalf("open a session on the contract over the migrated schema: %v", err)
	}
	defer s.Close()
	advice := s.Indexes(t.Context())
	if len(advice) != 2 {
		t.Errorf("index advice for %d tables, want payments and ledger_entries: %v", len(advice), advice)
	}
	for _, a := range advice {
		if !a.OK {
			t.Errorf("%s", a)
		}
	}
}
