package model_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/model"
)

func TestBodyShownBounded(t *testing.T) {
	huge := model.Body(`{"subject":"` + strings.Repeat("é", 3<<20) + `"}`)
	for name, shown := range map[string]string{"String": huge.String(), "JSON": mustJSON(t, huge)} {
		if len(shown) > model.ShownBody+200 {
			t.Errorf("%s: %d bytes shown for a %d-byte body", name, len(shown), len(huge))
		}
		if !strings.Contains(shown, fmt.Sprintf("%d bytes", len(huge))) || !strings.Contains(shown, "sha256 ") || !strings.HasPrefix(strings.Trim(shown, `"`), `{\"subject\"`) && !strings.HasPrefix(shown, `{"subject"`) {
			t.Errorf("%s: %.80q… lacks the length, digest or text", name, shown)
		}
	}
	small := model.Body(`{"subject":"Printer offline"}`)
	if got := mustJSON(t, small); got != `"{\"subject\":\"Printer offline\"}"` {
		t.Errorf("a short body is shown as text: %s", got)
	}
	var back model.Body
	if err := json.Unmarshal([]byte(mustJSON(t, small)), &back); err != nil || string(back) != string(small) {
		t.Errorf("round trip: %q, %v", back, err)
	}
	if got := model.Body([]byte{0xff, 0xfe, 0}).String(); !strings.Contains(got, "3 bytes, not UTF-8") {
		t.Errorf("binary body shown as %q", got)
	}
}

// A history in JSON shows its bodies as text, not base64.
func TestHistoryJSONShowsText(t *testing.T) {
	op := model.Op{Call: model.Call{Tenant: "A", Key: "k1"}, Body: model.Body(`{"subject":"x"}`),
		Out: model.Outcome{Kind: model.Other, Status: 201, Body: model.Body(`{"payment":{"id":"p_1"}}`)}}
	got := mustJSON(t, op)
	if !strings.Contains(got, `"body":"{\"subject\":\"x\"}"`) || !strings.Contains(got, `{\"payment\":{\"id\":\"p_1\"}}`) {
		t.Errorf("op JSON: %s", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
