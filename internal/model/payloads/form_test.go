package payloads_test

import (
	"net/url"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// A form body (Stripe) carries the payload's fields with brackets for
// nesting, the key where the payload puts it (and not at all in a keyless
// call), and is re-encoded only by reordering its fields.
func TestSendForm(t *testing.T) {
	c := model.Contract{Payload: map[string]any{"amount": 1250, "currency": "eur", "metadata": map[string]any{"order": "{{key}}", "ok": true}, "tags": []any{"a b", nil}}}
	id := payloads.Identity{Key: "ns-k1&2", Tenant: "ns-A"}
	want := "amount=1250&currency=eur&metadata%5Bok%5D=true&metadata%5Border%5D=ns-k1%262&tags%5B0%5D=a+b&tags%5B1%5D="
	if got := string(payloads.SendForm(c, id, 0, 0)); got != want {
		t.Errorf("form %s, want %s", got, want)
	}
	reordered := string(payloads.SendForm(c, id, 0, 1))
	if reordered == want {
		t.Errorf("encoding 1 did not reorder: %s", reordered)
	}
	a, _ := url.ParseQuery(want)
	b, _ := url.ParseQuery(reordered)
	if a.Encode() != b.Encode() || string(payloads.SendForm(c, id, 0, 2)) != want {
		t.Errorf("encodings differ by more than order: %s, %s", want, reordered)
	}
	if !payloads.Equivalent(c, payloads.RenderForm(c, "", 0, 0), payloads.RenderForm(c, "", 0, 1)) || payloads.Equivalent(c, payloads.RenderForm(c, "", 0, 0), payloads.RenderForm(c, "", 1, 0)) {
		t.Errorf("judged form payloads: reorderings must be equivalent, variants not")
	}
	if v, _ := url.ParseQuery(string(payloads.SendForm(c, payloads.Identity{NoKey: true}, 0, 0))); v.Has("metadata[order]") || !v.Has("metadata[ok]") {
		t.Errorf("keyless form %v; want no metadata[order]", v)
	}
	if v, _ := url.ParseQuery(string(payloads.SendForm(c, id, 1, 0))); v.Get("amount") != "1251" || v.Get("metadata[order]") != "ns-k1&2" {
		t.Errorf("variant 1 form %v; want amount 1251 and the key unchanged", v)
	}
}
