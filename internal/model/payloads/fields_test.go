package payloads_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// payments is a payload as a payments service validates it: a fixed
// currency, an enum, a bounded integer, a bounded string, nested fields.
func payments() model.Contract {
	c := model.DefaultContract()
	c.Payload = map[string]any{
		"currency": "EUR",
		"method":   "card",
		"amount":   100,
		"priority": 3,
		"note":     "rent",
		"payer":    map[string]any{"country": "DE", "tags": []any{"vip", "new"}},
	}
	c.Fields = map[string]model.FieldRule{
		"/currency":      {Fixed: true},
		"/method":        {Enum: []any{"card", "sepa", "wire"}},
		"/priority":      {Int: &model.Range{Min: 1, Max: 5}},
		"/note":          {MaxLen: 6},
		"/payer/country": {Enum: []any{"DE", "FR"}},
		"/payer/tags":    {Fixed: true},
	}
	return c
}

func field(t *testing.T, doc []byte, ptr string) string {
	t.Helper()
	v, ok := payloads.Pointer(doc, ptr)
	if !ok {
		t.Fatalf("%s: no %s", doc, ptr)
	}
	return v
}

// Every variant keeps every rule: fixed fields never change, enums pick
// members, ranges stay inside, strings stay within max_len; and variants
// differ from each other.
func TestVariantsKeepTheRules(t *testing.T) {
	c := payments()
	seen := map[string]int{}
	changed := map[string]bool{}
	base := payloads.Render(c, "", 0, 0)
	for v := range 40 {
		doc := payloads.Render(c, "", v, 0)
		canon, err := payloads.Canonical(doc)
		if err != nil {
			t.Fatal(err)
		}
		if w, dup := seen[string(canon)]; dup && v < payloads.DistinctVariants(c, 40) {
			t.Fatalf("variants %d and %d are the same payload %s", w, v, doc)
		}
		seen[string(canon)] = v
		if got := field(t, doc, "/currency"); got != "EUR" {
			t.Errorf("variant %d changed a fixed field: currency %s", v, got)
		}
		if got := field(t, doc, "/payer/tags"); got != `["vip","new"]` {
			t.Errorf("variant %d changed a fixed subtree: %s", v, got)
		}
		if m := field(t, doc, "/method"); m != "card" && m != "sepa" && m != "wire" {
			t.Errorf("variant %d: method %q outside the enum", v, m)
		}
		if p := field(t, doc, "/priority"); p < "1" || p > "5" || len(p) != 1 {
			t.Errorf("variant %d: priority %s outside 1..5", v, p)
		}
		if n := field(t, doc, "/note"); len([]rune(n)) > 6 {
			t.Errorf("variant %d: note %q over max_len 6", v, n)
		}
		for _, ptr := range []string{"/amount", "/method", "/priority", "/note", "/payer/country"} {
			if field(t, doc, ptr) != field(t, base, ptr) {
				changed[ptr] = true
			}
		}
	}
	for _, ptr := range []string{"/amount", "/method", "/priority", "/note", "/payer/country"} {
		if !changed[ptr] {
			t.Errorf("no variant changed %s", ptr)
		}
	}
}

// A variant changes one field: a service that fingerprints only some
// fields is caught on the others.
func TestAVariantChangesOneField(t *testing.T) {
	c := payments()
	base := payloads.Render(c, "", 0, 0)
	for v := 1; v < 12; v++ {
		doc := payloads.Render(c, "", v, 0)
		diff := 0
		for _, ptr := range []string{"/amount", "/method", "/priority", "/note", "/payer/country", "/currency"} {
			if field(t, doc, ptr) != field(t, base, ptr) {
				diff++
			}
		}
		if diff != 1 {
			t.Errorf("variant %d changes %d fields: %s", v, diff, doc)
		}
	}
}

// A payload whose only variable field is a two-member enum has two
// distinct variants; one with nothing variable has one.
func TestDistinctVariants(t *testing.T) {
	c := model.DefaultContract()
	c.Payload = map[string]any{"channel": "email", "currency": "EUR"}
	c.Fields = map[string]model.FieldRule{"/channel": {Enum: []any{"email", "sms"}}, "/currency": {Fixed: true}}
	if got := payloads.DistinctVariants(c, 3); got != 2 {
		t.Errorf("two-member enum: %d distinct variants, want 2", got)
	}
	c.Fields["/channel"] = model.FieldRule{Fixed: true}
	if got := payloads.DistinctVariants(c, 3); got != 1 {
		t.Errorf("nothing variable: %d distinct variants, want 1", got)
	}
	if got := payloads.DistinctVariants(payments(), 3); got != 3 {
		t.Errorf("payments: %d distinct variants, want 3", got)
	}
}

func TestCheckFields(t *testing.T) {
	if err := payloads.CheckFields(payments()); err != nil {
		t.Fatalf("valid rules refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		ptr  string
		rule model.FieldRule
		want string
	}{
		{"enum of one", "/method", model.FieldRule{Enum: []any{"card"}}, "at least two members"},
		{"base outside the enum", "/method", model.FieldRule{Enum: []any{"sepa", "wire"}}, `"card" is not one of`},
		{"base outside the range", "/priority", model.FieldRule{Int: &model.Range{Min: 4, Max: 5}}, "not a whole number in int"},
		{"int rule on a string", "/note", model.FieldRule{Int: &model.Range{Min: 1, Max: 5}}, "not a whole number"},
		{"empty range", "/priority", model.FieldRule{Int: &model.Range{Min: 5, Max: 5}}, "min < max"},
		{"max_len under the base", "/note", model.FieldRule{MaxLen: 3}, "leaves no room"},
		{"max_len on a number", "/amount", model.FieldRule{MaxLen: 10}, "applies to strings"},
		{"two rules", "/method", model.FieldRule{Fixed: true, Enum: []any{"card", "sepa"}}, "one of fixed, enum"},
		{"pointer into nothing", "/payer/zip", model.FieldRule{Fixed: true}, "points at nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := payments()
			c.Fields[tc.ptr] = tc.rule
			err := payloads.CheckFields(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fields."+tc.ptr) {
				t.Errorf("CheckFields = %v; want an error naming fields.%s and saying %q", err, tc.ptr, tc.want)
			}
		})
	}
}
