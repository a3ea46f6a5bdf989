package payloads_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// jsonValue draws a value as encoding/json decodes it: strings, numbers,
// bools, null, and nested objects and arrays up to the given depth.
func jsonValue(depth int) *rapid.Generator[any] {
	scalars := []*rapid.Generator[any]{
		rapid.String().AsAny(),
		rapid.Map(rapid.IntRange(-1_000_000, 1_000_000), func(i int) any { return float64(i) }),
		rapid.Float64Range(-1e9, 1e9).AsAny(),
		rapid.Bool().AsAny(),
		rapid.Just[any](nil),
	}
	if depth == 0 {
		return rapid.OneOf(scalars...)
	}
	return rapid.OneOf(append(scalars,
		rapid.Map(jsonObject(depth-1), func(m map[string]any) any { return m }),
		rapid.Map(rapid.SliceOfN(jsonValue(depth-1), 0, 4), func(s []any) any { return s }),
	)...)
}

func jsonObject(depth int) *rapid.Generator[map[string]any] {
	return rapid.MapOfN(rapid.StringN(0, 6, -1), jsonValue(depth), 0, 5)
}

// hasString reports whether a payload holds a string value (keys do not
// count: variants change values only).
func hasString(v any) bool {
	switch x := v.(type) {
	case string:
		return true
	case map[string]any:
		for _, e := range x {
			if hasString(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasString(e) {
				return true
			}
		}
	}
	return false
}

// escapable reports whether encoding 3 must change the bytes of a payload:
// some key or string value starts with a character it \u-escapes and plain
// JSON does not (plain JSON escapes control characters, <, > and & already).
func escapable(v any) bool {
	first := func(s string) bool {
		r, _ := utf8.DecodeRuneInString(s)
		plain, _ := json.Marshal(s)
		return s != "" && r < 0x10000 && !bytes.HasPrefix(plain, fmt.Appendf(nil, `"\u%04x`, r))
	}
	switch x := v.(type) {
	case string:
		return first(x)
	case map[string]any:
		for k, e := range x {
			if first(k) || escapable(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if escapable(e) {
				return true
			}
		}
	}
	return false
}

func mustCanonical(t *rapid.T, doc []byte) []byte {
	t.Helper()
	c, err := payloads.Canonical(doc)
	if err != nil {
		t.Fatalf("Canonical(%s): %v", doc, err)
	}
	return c
}

func TestRenderPayloadEncodingsAreCanonicalEqual(t *testing.T) {
	c := model.DefaultContract()
	rapid.Check(t, func(t *rapid.T) {
		base := jsonObject(2).Draw(t, "base")
		variant := rapid.IntRange(0, 5).Draw(t, "variant")
		zero := payloads.RenderPayload(base, variant, 0)
		want := mustCanonical(t, zero)
		differs := false
		for e := 1; e < payloads.NumEncodings; e++ {
			enc := payloads.RenderPayload(base, variant, e)
			if got := mustCanonical(t, enc); !bytes.Equal(got, want) {
				t.Fatalf("encoding %d: canonical %s, encoding 0: %s", e, got, want)
			}
			if !payloads.Equivalent(c, zero, enc) {
				t.Fatalf("encoding %d %s not equivalent to encoding 0 %s", e, enc, zero)
			}
			differs = differs || !bytes.Equal(enc, zero)
		}
		if hasString(base) && !differs {
			t.Fatalf("every encoding of %s is byte-equal to encoding 0", zero)
		}
		if escapable(base) && bytes.Equal(payloads.RenderPayload(base, variant, 3), zero) {
			t.Fatalf("encoding 3 escapes nothing in %s", zero)
		}
	})
}

func TestRenderPayloadVariantsDiffer(t *testing.T) {
	c := model.DefaultContract()
	rapid.Check(t, func(t *rapid.T) {
		base := jsonObject(2).Filter(func(m map[string]any) bool { return hasString(m) }).Draw(t, "base")
		v := rapid.IntRange(0, 12).Draw(t, "v")
		w := rapid.IntRange(0, 12).Filter(func(w int) bool { return w != v }).Draw(t, "w")
		a := payloads.RenderPayload(base, v, rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "encoding of v"))
		b := payloads.RenderPayload(base, w, rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "encoding of w"))
		if payloads.Equivalent(c, a, b) {
			t.Fatalf("variants %d and %d are equivalent: %s and %s", v, w, a, b)
		}
	})
}

func TestCanonicalIsIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := jsonObject(2).Draw(t, "base")
		doc := payloads.RenderPayload(base, 0, rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "encoding"))
		once := mustCanonical(t, doc)
		if twice := mustCanonical(t, once); !bytes.Equal(once, twice) {
			t.Fatalf("Canonical(%s) = %s, again: %s", doc, once, twice)
		}
	})
}

func TestEquivalenceBytesDistinguishesEncodings(t *testing.T) {
	c := model.DefaultContract()
	c.Equivalence = model.EquivalenceBytes
	rapid.Check(t, func(t *rapid.T) {
		base := jsonObject(2).Draw(t, "base")
		e := rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "e")
		f := rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "f")
		a, b := payloads.RenderPayload(base, 0, e), payloads.RenderPayload(base, 0, f)
		if got, want := payloads.Equivalent(c, a, b), bytes.Equal(a, b); got != want {
			t.Fatalf("bytes equivalence of %s and %s = %v, want %v", a, b, got, want)
		}
		// The spaced encoding differs from the compact one for every object.
		if compact, spaced := payloads.RenderPayload(base, 0, 0), payloads.RenderPayload(base, 0, 1); payloads.Equivalent(c, compact, spaced) {
			t.Fatalf("bytes equivalence does not tell encoding 0 from 1: %s", compact)
		}
	})
}

func TestRenderPayloadEncodings(t *testing.T) {
	base := map[string]any{"subject": "Hi", "n": float64(2), "tags": []any{"x", true, 0.5}}
	want := []string{
		`{"n":2,"subject":"Hi","tags":["x",true,0.5]}`,
		`{ "n" : 2, "subject" : "Hi", "tags" : ["x", true, 0.5] }`,
		`{ "tags" : ["x", true, 0.5], "subject" : "Hi", "n" : 2 }`,
		`{"\u006e":2,"\u0073ubject":"\u0048i","\u0074ags":["\u0078",true,0.5]}`,
		"{\n\"n\":2,\n\"subject\":\"Hi\",\n\"tags\":[\"x\",true,5e-1]\n}",
	}
	for e, w := range want {
		if got := string(payloads.RenderPayload(base, 0, e)); got != w {
			t.Errorf("encoding %d = %s, want %s", e, got, w)
		}
	}
	if got, w := string(payloads.RenderPayload(base, 2, 0)), `{"n":2,"subject":"Hi #2","tags":["x",true,0.5]}`; got != w {
		t.Errorf("variant 2 = %s, want %s", got, w)
	}
	if got, w := string(payloads.RenderPayload(base, 0, payloads.NumEncodings)), want[0]; got != w {
		t.Errorf("encoding NumEncodings = %s, want it to wrap to encoding 0 %s", got, w)
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		doc, want string
		err       string
	}{
		{doc: `{ "b" : 1 , "a" : [ 1.0, "x" ] }`, want: `{"a":[1,"x"],"b":1}`},
		{doc: `[0.50, 5e-1, -2.5E+1, 12345678901234567890123]`, want: `[0.5,0.5,-25,12345678901234567890123]`},
		{doc: `"\u0041"`, want: `"A"`},
		{doc: `{"n": 1e3}`, want: `{"n":1000}`},
		{doc: `[-0, 0, -10, 10, -0.0, 100.00, "<&>"]`, want: `[0,0,-10,10,0,100,"\u003c\u0026\u003e"]`},
		{doc: `{"a":`, err: "payload is not JSON"},
		{doc: `{} {}`, err: "data after the JSON value"},
		{doc: ``, err: "payload is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			got, err := payloads.Canonical([]byte(tt.doc))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Canonical(%s) error = %v, want one containing %q", tt.doc, err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Canonical(%s) = %s, %v; want %s", tt.doc, got, err, tt.want)
			}
		})
	}
}

func TestEquivalent(t *testing.T) {
	canon := model.DefaultContract()
	raw := model.DefaultContract()
	raw.Equivalence = model.EquivalenceBytes
	tests := []struct {
		name       string
		a, b       string
		canon, raw bool
	}{
		{"identical", `{"a":1}`, `{"a":1}`, true, true},
		{"key order and whitespace", `{"a":1,"b":2}`, ` {"b": 2, "a": 1}`, true, false},
		{"escapes", `{"a":"\u0078"}`, `{"a":"x"}`, true, false},
		{"changed value", `{"a":"x"}`, `{"a":"y"}`, false, false},
		{"numbers written otherwise", `{"a":1}`, `{"a":1.0}`, true, false},
		{"numbers in exponent form", `{"a":0.5,"b":100}`, `{"a":5e-1,"b":1E2}`, true, false},
		{"other numbers", `{"a":0.5}`, `{"a":0.50001}`, false, false},
		{"not JSON, equal bytes", `{oops`, `{oops`, true, true},
		{"not JSON, different bytes", `{oops`, `{oops `, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := payloads.Equivalent(canon, []byte(tt.a), []byte(tt.b)); got != tt.canon {
				t.Errorf("canonical-json: Equivalent(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.canon)
			}
			if got := payloads.Equivalent(raw, []byte(tt.a), []byte(tt.b)); got != tt.raw {
				t.Errorf("bytes: Equivalent(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.raw)
			}
		})
	}
}

func TestPointer(t *testing.T) {
	doc := `{
		"id": 42,
		"big": 12345678901234567890,
		"f": 1.50,
		"ticket": {"id": "t-1", "tags": ["a", {"x": null}], "ok": true},
		"a/b": "slash",
		"m~n": "tilde",
		"~1": "literal tilde one",
		"": "empty key"
	}`
	tests := []struct {
		ptr  string
		want string
		ok   bool
	}{
		{"/id", "42", true},
		{"/big", "12345678901234567890", true},
		{"/f", "1.50", true},
		{"/ticket/id", "t-1", true},
		{"/ticket/tags/0", "a", true},
		{"/ticket/tags/1", `{"x":null}`, true},
		{"/ticket/tags/1/x", "null", true},
		{"/ticket/ok", "true", true},
		{"/ticket/tags", `["a",{"x":null}]`, true},
		{"/a~1b", "slash", true},
		{"/m~0n", "tilde", true},
		{"/~01", "literal tilde one", true},
		{"/", "empty key", true},
		{"/missing", "", false},
		{"/ticket/missing", "", false},
		{"/ticket/tags/2", "", false},
		{"/ticket/tags/-1", "", false},
		{"/ticket/tags/x", "", false},
		{"/id/0", "", false},
		{"id", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.ptr, func(t *testing.T) {
			got, ok := payloads.Pointer([]byte(doc), tt.ptr)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Pointer(%q) = %q, %v; want %q, %v", tt.ptr, got, ok, tt.want, tt.ok)
			}
		})
	}
	if got, ok := payloads.Pointer([]byte(`{"a":1}`), ""); !ok || got != `{"a":1}` {
		t.Errorf(`Pointer("") = %q, %v; want the whole document`, got, ok)
	}
	if _, ok := payloads.Pointer([]byte(`not json`), "/id"); ok {
		t.Error(`Pointer on a body that is not JSON found a value`)
	}
}

// Every encoding of a variant is canonical-equal; variants are not.
func ExampleRenderPayload() {
	base := map[string]any{"subject": "Printer offline", "priority": float64(2)}
	for e := 0; e < payloads.NumEncodings; e++ {
		fmt.Printf("%s\n", payloads.RenderPayload(base, 0, e))
	}
	// Each variant changes one field: the first the priority, the second
	// the subject.
	fmt.Printf("%s\n", payloads.RenderPayload(base, 1, 0))
	fmt.Printf("%s\n", payloads.RenderPayload(base, 2, 0))
	// Output:
	// {"priority":2,"subject":"Printer offline"}
	// { "priority" : 2, "subject" : "Printer offline" }
	// { "subject" : "Printer offline", "priority" : 2 }
	// {"\u0070riority":2,"\u0073ubject":"\u0050rinter offline"}
	// {
	// "priority":2,
	// "subject":"Printer offline"
	// }
	// {"priority":3,"subject":"Printer offline"}
	// {"priority":2,"subject":"Printer offline #2"}
}

func ExampleCanonical() {
	c, _ := payloads.Canonical([]byte(`{ "b": "\u0078", "a": 1 }`))
	fmt.Printf("%s\n", c)
	// Output: {"a":1,"b":"x"}
}

// Pointer reads a resource ID out of an answer's body.
func ExamplePointer() {
	id, ok := payloads.Pointer([]byte(`{"ticket":{"id":1042}}`), "/ticket/id")
	fmt.Println(id, ok)
	// Output: 1042 true
}

// A typed decoder (Go's int64 fields, unknown fields refused) takes every
// variant and re-encoding of a payload of integers: an integer is never
// re-encoded as 3.0 or 3e0 unless the contract allows it.
func TestRenderKeepsIntegers(t *testing.T) {
	type strict struct {
		Amount   int64  `json:"amount_cents"`
		Quantity int64  `json:"quantity"`
		Note     string `json:"note"`
		Nested   struct {
			Count int64 `json:"count"`
		} `json:"nested"`
	}
	c := model.Contract{Payload: map[string]any{"amount_cents": 1250, "quantity": int64(3), "note": "x", "nested": map[string]any{"count": float64(7)}},
		Fields: map[string]model.FieldRule{"/amount_cents": {Int: &model.Range{Min: 1, Max: 100000}}}}
	for v := range 8 {
		for e := range payloads.NumEncodings {
			doc := payloads.Render(c, "", v, e)
			d := json.NewDecoder(bytes.NewReader(doc))
			d.DisallowUnknownFields()
			var s strict
			if err := d.Decode(&s); err != nil {
				t.Errorf("variant %d encoding %d %s: a typed decoder refuses it: %v", v, e, doc, err)
			}
		}
	}
	// Allowed: a number rule on the field, or LooseNumbers for all.
	c.Fields = map[string]model.FieldRule{"/quantity": {Number: &model.Range{Min: 0, Max: 10}}}
	if got, want := string(payloads.Render(c, "", 0, 4)), "{\n\"amount_cents\":1250,\n\"nested\":{\n\"count\":7\n},\n\"note\":\"x\",\n\"quantity\":3.0\n}"; got != want {
		t.Errorf("encoding 4 under a number rule = %q, want %q", got, want)
	}
	c.LooseNumbers = true
	if got, want := string(payloads.Render(c, "", 0, 4)), "{\n\"amount_cents\":1250.0,\n\"nested\":{\n\"count\":7.0\n},\n\"note\":\"x\",\n\"quantity\":3.0\n}"; got != want {
		t.Errorf("encoding 4 with loose numbers = %q, want %q", got, want)
	}
}

// TestRenderQuotesStringsAsJSONMarshal pins the bytes of a payload's
// strings: encoding 0 writes them as json.Marshal does (HTML characters,
// control characters, U+2028 and bad UTF-8 escaped), and encoding 3
// \u-escapes the first character and writes the rest the same way.
func TestRenderQuotesStringsAsJSONMarshal(t *testing.T) {
	str := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune("ab \"\\<>&/{}\x01\x1f\x7f\u2028é\U0001F600"))),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }))
	esc3 := func(s string) string {
		if s == "" {
			return `""`
		}
		r, n := utf8.DecodeRuneInString(s)
		rest, _ := json.Marshal(s[n:])
		if r >= 0x10000 {
			whole, _ := json.Marshal(s)
			return string(whole)
		}
		return fmt.Sprintf(`"\u%04x`, r) + string(rest[1:])
	}
	rapid.Check(t, func(t *rapid.T) {
		k, v := str.Draw(t, "key"), str.Draw(t, "value")
		if strings.Contains(k+v, "{{") {
			t.Skip("a placeholder is filled in, not quoted")
		}
		base := map[string]any{k: v}
		want, _ := json.Marshal(base)
		if got := payloads.RenderPayload(base, 0, 0); !bytes.Equal(got, want) {
			t.Fatalf("encoding 0: %q, json.Marshal: %q", got, want)
		}
		if got, want := string(payloads.RenderPayload(base, 0, 3)), "{"+esc3(k)+":"+esc3(v)+"}"; got != want {
			t.Fatalf("encoding 3: %q, want %q", got, want)
		}
	})
}

// TestCanonicalAsJSONMarshal pins Canonical's bytes to json.Marshal of
// the decoded document with every number written by its exact value.
func TestCanonicalAsJSONMarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := jsonObject(2).Draw(t, "doc")
		doc := payloads.RenderPayload(base, 0, rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "encoding"))
		var v any
		d := json.NewDecoder(bytes.NewReader(doc))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		want, err := json.Marshal(exactNumbers(v))
		if err != nil {
			t.Fatal(err)
		}
		if got := mustCanonical(t, doc); !bytes.Equal(got, want) {
			t.Fatalf("Canonical(%s) = %s, want %s", doc, got, want)
		}
	})
}

// exactNumbers writes every number of a decoded document by its exact
// value, through math/big: the reference Canonical is held to.
func exactNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = exactNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = exactNumbers(e)
		}
	case json.Number:
		r, _ := new(big.Rat).SetString(string(x))
		if r.IsInt() {
			return json.Number(r.Num().String())
		}
		return json.Number(strings.TrimRight(r.FloatString(400), "0"))
	}
	return v
}
