package payloads_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// A payload may carry the key, tenant and tag (Square's idempotency_key,
// nested too): Send fills them in, leaves the key's member out of a
// keyless call, and no variant changes them; Render, what the model
// judges, is the same for every tenant and key.
func TestPayloadCarriesIdentity(t *testing.T) {
	c := model.Contract{Payload: map[string]any{
		"idempotency_key": "{{key}}",
		"order":           map[string]any{"location": "{{tenant}}", "ref": "{{key}}", "note": "lunch [{{tag}}]"},
		"amount":          1250,
	}}
	id := payloads.Identity{Tenant: "ns-A", Key: "ns-k1", Tag: "T"}
	for v := range 6 {
		for e := range payloads.NumEncodings {
			var sent map[string]any
			if err := json.Unmarshal(payloads.Send(c, id, v, e), &sent); err != nil {
				t.Fatal(err)
			}
			order := sent["order"].(map[string]any)
			if sent["idempotency_key"] != "ns-k1" || order["ref"] != "ns-k1" || order["location"] != "ns-A" {
				t.Errorf("variant %d encoding %d: sent %v; want the key and tenant as given, unvaried", v, e, sent)
			}
			if v == 0 && order["note"] != "lunch [T]" {
				t.Errorf("note %v; want the tag filled in", order["note"])
			}
			other := payloads.Send(c, payloads.Identity{Tenant: "ns-B", Key: "ns-k2", Tag: "T"}, v, e)
			if bytes.Equal(other, payloads.Send(c, id, v, e)) {
				t.Errorf("variant %d: another tenant and key sent the same body", v)
			}
		}
	}
	var keyless map[string]any
	if err := json.Unmarshal(payloads.Send(c, payloads.Identity{Tenant: "ns-A", NoKey: true}, 0, 0), &keyless); err != nil {
		t.Fatal(err)
	}
	if _, ok := keyless["idempotency_key"]; ok {
		t.Errorf("keyless call sent %v; want no idempotency_key member", keyless)
	}
	if _, ok := keyless["order"].(map[string]any)["ref"]; ok {
		t.Errorf("keyless call sent %v; want no order.ref member", keyless)
	}
	if got := string(payloads.Render(c, "T", 0, 0)); got != `{"amount":1250,"idempotency_key":"{{key}}","order":{"location":"{{tenant}}","note":"lunch [T]","ref":"{{key}}"}}` {
		t.Errorf("judged payload %s; want the key and tenant as written", got)
	}
	if !payloads.Carries(c, "key") || !payloads.Carries(c, "tenant") || !payloads.Carries(c, "tag") || payloads.Carries((model.Contract{Payload: map[string]any{"a": "b"}}), "key") {
		t.Errorf("Carries: wrong")
	}
}

// A history shows a key carried in the body as the call's logical key,
// not as the placeholder the model judges by; a keyless call's shows the
// member left out; a body without placeholders is shown as it is.
func TestOpShownFillsIdentity(t *testing.T) {
	c := model.Contract{Payload: map[string]any{"idempotency_key": "{{key}}", "account": "{{tenant}}", "amount": 5}}
	for e := range payloads.NumEncodings {
		op := model.Op{Call: model.Call{Tenant: "B", Key: "k2"}, Body: payloads.Render(c, "", 0, e)}
		var shown map[string]any
		if err := json.Unmarshal([]byte(op.Shown()), &shown); err != nil || shown["idempotency_key"] != "k2" || shown["account"] != "B" {
			t.Errorf("encoding %d: shown %s (%v); want the key k2 and the tenant B", e, op.Shown(), err)
		}
	}
	op := model.Op{Call: model.Call{Tenant: "B", Key: "k2"}, Body: payloads.Render(c, "", 0, 0)}
	op.Call.NoKey = true
	if got, want := op.Shown(), `{"account":"B","amount":5,"idempotency_key":"(left out: no key)"}`; got != want {
		t.Errorf("keyless shown %s; want %s", got, want)
	}
	plain := model.Op{Call: model.Call{Tenant: "A", Key: "k1"}, Body: payloads.Render(model.Contract{Payload: map[string]any{"n": 1}}, "", 0, 0)}
	if got := plain.Shown(); got != plain.Body.String() || got != `{"n":1}` {
		t.Errorf("a body without placeholders shown as %s", got)
	}
}
