package identifiers_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// The key column holds the key as its template sends it: StoredKey and
// LogicalKey round-trip through the template, and KeyPrefix starts every
// stored value of the namespace.
func TestKeyTemplateMapping(t *testing.T) {
	ns := model.Namespace("is4d980a21-1-")
	for _, tmpl := range []string{"", "order-{{key}}", "{{key}}-{{key}}", "a{{key}}b{{key}}c"} {
		for _, f := range []model.IDFormat{model.IDAny, model.IDWord, model.IDUUID} {
			c := model.Contract{KeyTemplate: tmpl, KeyFormat: f}
			for _, logical := range []string{"k1", "k12", model.Shaped("k1", model.ShapeCase)} {
				stored := identifiers.StoredKey(c, ns, logical)
				if want := strings.ReplaceAll(tmpl, "{{key}}", identifiers.SentKey(c, ns, logical)); tmpl != "" && stored != want {
					t.Errorf("%q %s: stored %q; want %q", tmpl, f, stored, want)
				}
				if back, ok := identifiers.LogicalKey(c, ns, stored); !ok || back != logical {
					t.Errorf("%q %s: %q back as %q, %v; want %q", tmpl, f, stored, back, ok, logical)
				}
				if !strings.HasPrefix(stored, identifiers.KeyPrefix(c, ns)) {
					t.Errorf("%q %s: %q outside prefix %q", tmpl, f, stored, identifiers.KeyPrefix(c, ns))
				}
			}
			// The bare key is not what such a service stores.
			if sent := identifiers.SentKey(c, ns, "k1"); tmpl != "" {
				if back, ok := identifiers.LogicalKey(c, ns, sent); ok && back == "k1" {
					t.Errorf("%q %s: the bare key %q read as k1", tmpl, f, sent)
				}
			}
		}
	}
}

// Copies of the key that differ are no key the template made.
func TestKeyTemplateCopiesDiffer(t *testing.T) {
	c := model.Contract{KeyTemplate: "{{key}}-{{key}}"}
	ns := model.Namespace("is1-")
	if _, ok := identifiers.LogicalKey(c, ns, "is1-k1-is1-k2"); ok {
		t.Error("is1-k1-is1-k2 read as a key of {{key}}-{{key}}")
	}
}

// The key's template is the first value that holds the key and nothing
// else; the key alone is "".
func TestKeyTemplateOf(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
	}{
		{[]string{"{{key}}"}, ""},
		{[]string{"Key {{tenant}}:{{key}}", "order-{{ key }}"}, "order-{{key}}"},
		{[]string{"x", "{{key}}", "ref-{{key}}"}, ""},
		{[]string{"{{tenant}}-{{key}}"}, ""},
		{nil, ""},
	} {
		if got := identifiers.KeyTemplateOf(tc.values); got != tc.want {
			t.Errorf("%q: %q; want %q", tc.values, got, tc.want)
		}
	}
}

// A long key leaves room for the template within key_max_len.
func TestKeyTemplateLongKeyFits(t *testing.T) {
	c := model.Contract{KeyTemplate: "order-{{key}}", KeyMaxLen: 64}
	if n := len(identifiers.StoredKey(c, "is1-", model.Shaped("k1", 'l'))); n > 64 {
		t.Errorf("long key stored in %d bytes; want at most 64", n)
	}
}

// WithIdentity fills the key and the tenant in every string, numbers kept.
func TestWithIdentity(t *testing.T) {
	got := string(payloads.WithIdentity([]byte(`{"a":"ref-{{key}}","n":[1.50,"{{tenant}}/{{key}}"]}`), "ns-k1", "ns-A"))
	if want := `{"a":"ref-ns-k1","n":[1.50,"ns-A/ns-k1"]}`; got != want {
		t.Errorf("%s; want %s", got, want)
	}
}
