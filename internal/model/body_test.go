package model_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemstress/idemstress/internal/model"
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

// An excerpt is cut at a character boundary, so it stays text, and says
// how long the whole was.
func TestExcerpt(t *testing.T) {
	whole := []byte(`{"note":"` + strings.Repeat("é", 3000) + `"}`)
	for _, n := range []int{4096, 4097, 200, 201} {
		ex := model.Excerpt(whole, n)
		if !utf8.Valid(ex) || strings.Contains(ex.String(), "not UTF-8") {
			t.Errorf("Excerpt(%d) is not text: %.60q", n, ex)
		}
		if len(ex) > n+30 || !strings.HasSuffix(string(ex), fmt.Sprintf("… (%d bytes)", len(whole))) {
			t.Errorf("Excerpt(%d) = %d bytes ending %q", n, len(ex), ex[max(0, len(ex)-20):])
		}
	}
	if got := model.Excerpt([]byte("short"), 10); string(got) != "short" {
		t.Errorf("a short body is kept whole: %q", got)
	}
}
