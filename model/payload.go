package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NumEncodings is how many canonical-equal byte encodings RenderPayload knows.
const NumEncodings = 4

// RenderPayload encodes variant v of the base payload with encoding e.
// Variant 0 is the base itself; variant v > 0 appends " #v" to every string
// field, so different variants are never equivalent. Encodings differ only in
// bytes: 0 compact with sorted keys, 1 spaced, 2 reversed key order,
// 3 the first character of every string \u-escaped.
func RenderPayload(base map[string]any, variant, encoding int) []byte {
	return RenderTagged(base, "", variant, encoding)
}

// RenderTagged is RenderPayload with every {{tag}} in the base payload's
// strings replaced by the call's action tag.
func RenderTagged(base map[string]any, tag string, variant, encoding int) []byte {
	v := withVariant(base, tag, variant)
	var b bytes.Buffer
	encode(&b, v, encoding%NumEncodings)
	return b.Bytes()
}

func withVariant(v any, tag string, variant int) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = withVariant(e, tag, variant)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withVariant(e, tag, variant)
		}
		return out
	case string:
		x = strings.ReplaceAll(x, "{{tag}}", tag)
		if variant == 0 {
			return x
		}
		return fmt.Sprintf("%s #%d", x, variant)
	default:
		return v
	}
}

func encode(b *bytes.Buffer, v any, enc int) {
	space := ""
	if enc == 1 || enc == 2 {
		space = " "
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if enc == 2 {
			sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		}
		b.WriteString("{" + space)
		for i, k := range keys {
			if i > 0 {
				b.WriteString("," + space)
			}
			encode(b, k, enc)
			b.WriteString(space + ":" + space)
			encode(b, x[k], enc)
		}
		b.WriteString(space + "}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString("," + space)
			}
			encode(b, e, enc)
		}
		b.WriteString("]")
	case string:
		if enc == 3 && x != "" {
			r, n := utf8.DecodeRuneInString(x)
			if r < 0x10000 {
				fmt.Fprintf(b, `"\u%04x`, r)
				quoted, _ := json.Marshal(x[n:])
				b.Write(quoted[1:])
				return
			}
		}
		quoted, _ := json.Marshal(x)
		b.Write(quoted)
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			// Payloads come from decoded JSON, so every value re-encodes.
			panic(fmt.Sprintf("model: payload value %v cannot be encoded: %v", x, err))
		}
		b.Write(raw)
	}
}

// Canonical returns the canonical JSON form of a document: object keys
// sorted, no insignificant whitespace, strings in one escaping, numbers as
// written. Two documents are canonical-equal when their forms are equal.
func Canonical(doc []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("payload is not JSON: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("payload has data after the JSON value")
	}
	return json.Marshal(v)
}

// Equivalent reports whether two payloads count as the same under the
// contract's equivalence.
func (c Contract) Equivalent(a, b []byte) bool {
	if c.Equivalence == EquivalenceBytes {
		return bytes.Equal(a, b)
	}
	ca, errA := Canonical(a)
	cb, errB := Canonical(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca, cb)
}

// Pointer resolves a JSON pointer (RFC 6901) in a document and returns the
// value as text: strings as they are, anything else as compact JSON.
func Pointer(doc []byte, ptr string) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", false
	}
	v, ok := resolve(v, ptr)
	if !ok {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			return "", false
		}
		return string(raw), true
	}
}

func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range splitPointer(ptr[1:]) {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func splitPointer(s string) []string {
	var toks []string
	cur := []byte{}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '/':
			toks = append(toks, string(cur))
			cur = cur[:0]
		case s[i] == '~' && i+1 < len(s) && s[i+1] == '1':
			cur = append(cur, '/')
			i++
		case s[i] == '~' && i+1 < len(s) && s[i+1] == '0':
			cur = append(cur, '~')
			i++
		default:
			cur = append(cur, s[i])
		}
	}
	return append(toks, string(cur))
}
