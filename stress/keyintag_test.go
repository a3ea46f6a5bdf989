package stress

import (
	"testing"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
)

// Issue 16.7: a tag that carries the key in the payload (a body field that
// is {{tag}} alone, or a payload with a tag and no {{key}} sent anywhere)
// is the key as the service sees it, as a tag in a header is: two tenants
// never send one key, so a tenant leak is not exercised. A tag inside a
// text beside a {{key}} header (the tagged layout) is not.
func TestKeyInTag(t *testing.T) {
	header := map[string]string{"Idempotency-Key": "{{key}}", "X-Tenant": "{{tenant}}"}
	tenantOnly := map[string]string{"X-Tenant": "{{tenant}}"}
	for _, tc := range []struct {
		name    string
		headers map[string]string
		payload map[string]any
		want    bool
	}{
		{"key header, no tag", header, map[string]any{"subject": "x"}, false},
		{"key header, tag in a text (tagged layout)", header, map[string]any{"subject": "Printer offline [{{tag}}]"}, false},
		{"tag in a header", map[string]string{"Idempotency-Key": "{{tag}}", "X-Client-Key": "{{key}}"}, map[string]any{"subject": "x"}, true},
		{"key field of the body is the tag", header, map[string]any{"idempotency_key": "{{tag}}", "note": "x"}, true},
		{"nested body field is the tag", header, map[string]any{"meta": map[string]any{"ref": "{{tag}}"}}, true},
		{"tag in a text, no key sent", tenantOnly, map[string]any{"note": "coffee {{tag}}"}, true},
		{"tag in a text, key in the body", tenantOnly, map[string]any{"note": "coffee {{tag}}", "idempotency_key": "{{key}}"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.Payload = tc.payload
			cfg := Config{Spec: contract.Spec{HTTP: client.HTTPSpec{URL: "http://127.0.0.1:1/tickets", Headers: tc.headers}, Contract: c}}
			if got := keyInTag(cfg); got != tc.want {
				t.Fatalf("keyInTag = %v, want %v", got, tc.want)
			}
			// Two tenants sending one key: a transition only when the
			// service sees the key.
			a, b := model.Call{Tenant: "A", Key: "k1"}, model.Call{Tenant: "B", Key: "k1"}
			hist := model.Calls(model.Op{Call: a, Start: 0, End: 1, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "1"}},
				model.Op{Call: b, Start: 2, End: 3, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "2"}})
			cov := coverage.Exercised(coverage.Exercise{Contract: c, KeyInTag: keyInTag(cfg), History: hist})
			if got := cov[coverage.OtherTenantSameKey] > 0; got == tc.want {
				t.Errorf("other tenant, same key exercised: %v, want %v", got, !tc.want)
			}
		})
	}
}
