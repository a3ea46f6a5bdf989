// Package payloads renders what a call sends and reads what a body holds,
// under the contract's payload rules: a payload's variants and byte
// encodings (Render, Send, the form encoding), the fields a variant changes
// and the rules a broken call breaks (Breakages), the identity a payload
// carries (tag, key, tenant) and its unique values, canonical equality, and
// JSON pointers into a body. The key and tenant as sent are
// internal/model/identifiers'; judging an answer is internal/model/reference's.
package payloads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/idemstress/idemstress/internal/model"
)

// NumEncodings is how many canonical-equal byte encodings Render knows.
const NumEncodings = 5

// RenderPayload encodes variant v of the base payload with encoding e,
// under the default field rules (see Render).
func RenderPayload(base map[string]any, variant, encoding int) []byte {
	return Render(model.Contract{Payload: base}, "", variant, encoding)
}

// RenderTagged is RenderPayload with every {{tag}} in the base payload's
// strings replaced by the call's action tag.
func RenderTagged(base map[string]any, tag string, variant, encoding int) []byte {
	return Render(model.Contract{Payload: base}, tag, variant, encoding)
}

// Render encodes variant v of the contract's payload with encoding e, every
// {{tag}} in its strings replaced by tag. Variant 0 is the payload itself;
// variant v ≥ 1 changes one field as the contract's field rules say (see
// varied), so different variants are never equivalent. Encodings differ
// only in bytes: 0 compact with sorted keys, 1 spaced, 2 reversed key order,
// 3 the first character of every string \u-escaped, 4 a line per member
// with numbers written otherwise (0.5 as 5e-1). An integer stays an
// integer in every encoding (a typed decoder refuses 3.0, and that says
// nothing about idempotency) unless the contract allows more: a number
// rule on the field, or LooseNumbers; then 3 is written 3.0.
//
// Render is the payload as the reference model judges it: {{key}} and
// {{tenant}} in its strings stay as written, for they are the call's
// identity, not its payload (Send fills them in).
func Render(c model.Contract, tag string, variant, encoding int) []byte {
	return RenderAs(c, Identity{Tag: tag}, variant, encoding)
}

// RenderAs is Render for a call that may send another action's unique
// values (id.Unique); only id's Tag and Unique are read.
func RenderAs(c model.Contract, id Identity, variant, encoding int) []byte {
	var b bytes.Buffer
	e := encoder{b: &b, enc: encoding % NumEncodings, contract: c}
	e.encode("", varied(c, filler{id: Identity{Tag: id.Tag, Unique: id.Unique}, tagOnly: true}, variant))
	return b.Bytes()
}

// Send is the body sent for a call: Render's bytes with {{key}},
// {{tenant}} and {{tag}} in the payload's strings filled in from id, and
// for a call without its key (id.NoKey) every member whose value uses
// {{key}} left out, as a client that has no key leaves the field out.
func Send(c model.Contract, id Identity, variant, encoding int) []byte {
	var b bytes.Buffer
	e := encoder{b: &b, enc: encoding % NumEncodings, contract: c}
	e.encode("", varied(c, filler{id: id}, variant))
	return b.Bytes()
}

// encoder writes one encoding of a payload; contract says which integers
// may be written as other numbers.
type encoder struct {
	b        *bytes.Buffer
	enc      int
	contract model.Contract
}

// encode writes v, found at JSON pointer ptr in the payload, in e's
// encoding (see Render for what each does).
func (e encoder) encode(ptr string, v any) {
	switch x := v.(type) {
	case map[string]any:
		e.object(ptr, x)
	case []any:
		e.array(ptr, x)
	case string:
		e.text(x)
	case json.Number:
		// Decoded, so valid: written as it is, as json.Marshal does.
		raw := []byte(x)
		if e.enc == 4 {
			raw = otherNumber(raw, e.contract.LooseNumbers || e.contract.Fields[ptr].Number != nil)
		}
		e.b.Write(raw)
	default:
		e.scalar(ptr, x)
	}
}

// child is the pointer of a member of the value at ptr, for the one
// encoding that reads it (4, by a number's field rule); "" in the others,
// which need no pointer built per member.
func (e encoder) child(ptr, token string) string {
	if e.enc != 4 {
		return ""
	}
	return ptr + "/" + token
}

// writeString writes s as json.Marshal quotes it, without its opening
// quote when open is set. A string of printable ASCII that needs no escape
// (most of a payload's) is written as it is, without json.Marshal's
// allocations; json.Marshal writes it the same.
func writeString(b *bytes.Buffer, s string, open bool) {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if !plain {
		quoted, _ := json.Marshal(s)
		if open {
			quoted = quoted[1:]
		}
		b.Write(quoted)
		return
	}
	if !open {
		b.WriteByte('"')
	}
	b.WriteString(s)
	b.WriteByte('"')
}

// punctuation is how e's encoding lays out an object: compact, spaced
// (encodings 1 and 2), or a line per member (4).
func (e encoder) punctuation() (open, sep, colon, end string) {
	switch e.enc {
	case 1, 2:
		return "{ ", ", ", " : ", " }"
	case 4:
		return "{\n", ",\n", ":", "\n}"
	}
	return "{", ",", ":", "}"
}

// object writes x's members with sorted keys, or reversed in encoding 2.
func (e encoder) object(ptr string, x map[string]any) {
	open, sep, colon, end := e.punctuation()
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if e.enc == 2 {
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
	}
	e.b.WriteString(open)
	for i, k := range keys {
		if i > 0 {
			e.b.WriteString(sep)
		}
		e.encode("", k)
		e.b.WriteString(colon)
		e.encode(e.child(ptr, escapePointer(k)), x[k])
	}
	e.b.WriteString(end)
}

// array writes x's elements, separated as an object's members are but on
// one line.
func (e encoder) array(ptr string, x []any) {
	_, sep, _, _ := e.punctuation()
	e.b.WriteString("[")
	for i, el := range x {
		if i > 0 {
			e.b.WriteString(strings.TrimRight(sep, "\n"))
		}
		e.encode(e.child(ptr, strconv.Itoa(i)), el)
	}
	e.b.WriteString("]")
}

// text writes x quoted; encoding 3 \u-escapes its first character where
// it fits one escape (below U+10000).
func (e encoder) text(x string) {
	if e.enc == 3 && x != "" {
		r, n := utf8.DecodeRuneInString(x)
		if r < 0x10000 {
			fmt.Fprintf(e.b, `"\u%04x`, r)
			writeString(e.b, x[n:], true)
			return
		}
	}
	writeString(e.b, x, false)
}

// scalar writes a number, bool or null; encoding 4 writes a number
// otherwise, as a fraction only where the contract allows one at ptr.
func (e encoder) scalar(ptr string, x any) {
	raw, err := json.Marshal(x)
	if err != nil {
		// Payloads come from decoded JSON, so every value re-encodes.
		panic(fmt.Sprintf("model: payload value %v cannot be encoded: %v", x, err))
	}
	if e.enc == 4 {
		raw = otherNumber(raw, e.contract.LooseNumbers || e.contract.Fields[ptr].Number != nil)
	}
	e.b.Write(raw)
}

// otherNumber writes a JSON number another way with the same value: an
// integer with a fraction (2.0) when fractions are allowed, as it is when
// not; anything else in exponent form (5e-1). Other JSON values come back
// as they are.
func otherNumber(raw []byte, fractions bool) []byte {
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok {
		return raw
	}
	if r.IsInt() {
		if !fractions {
			return raw
		}
		return append(raw, ".0"...)
	}
	// digits·10^-exp, exact: a JSON number's denominator is 2^a·5^b.
	num := new(big.Int).Set(r.Num())
	den := r.Denom()
	for exp := 1; exp <= 400; exp++ {
		num.Mul(num, big.NewInt(10))
		if q, m := new(big.Int).QuoRem(num, den, new(big.Int)); m.Sign() == 0 {
			return fmt.Appendf(nil, "%se-%d", q, exp)
		}
	}
	return raw
}

// canonical returns the canonical JSON form of a document: object keys
// sorted, no insignificant whitespace, strings in one escaping, numbers by
// value (100, 100.0 and 1e2 are one number). Two documents are
// canonical-equal when their forms are equal.
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
	var b bytes.Buffer
	encoder{b: &b}.encode("", canonicalNumbers(v))
	return b.Bytes(), nil
}

// canonicalNumbers writes every number by its exact value: an integer as
// digits, anything else as the shortest exact decimal.
func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbers(e)
		}
	case json.Number:
		if plainInteger(string(x)) {
			return x // the digits of its value already
		}
		r, ok := new(big.Rat).SetString(x.String())
		if !ok {
			return x
		}
		if r.IsInt() {
			return json.Number(r.Num().String())
		}
		return json.Number(strings.TrimRight(r.FloatString(400), "0"))
	}
	return v
}

// plainInteger reports a number written as its integer value's digits:
// 0, or an optional minus and digits that do not start with 0.
func plainInteger(n string) bool {
	digits := strings.TrimPrefix(n, "-")
	if digits == "0" {
		return n == "0"
	}
	if digits == "" || digits[0] == '0' {
		return false
	}
	return strings.Trim(digits, "0123456789") == ""
}

// Equivalent reports whether two payloads count as the same under the
// contract's equivalence.
func Equivalent(c model.Contract, a, b []byte) bool {
	if c.Equivalence == model.EquivalenceBytes || bytes.Equal(a, b) {
		// The same bytes have the same canonical form, or fail to
		// parse alike and are compared as bytes.
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
	v, ok := pointed(doc, ptr)
	if !ok {
		return "", false
	}
	return asText(v)
}

// pointed is the value a JSON pointer names in a document, numbers as
// written (json.Number).
func pointed(doc []byte, ptr string) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return resolve(v, ptr)
}

// asText is a pointed value as Pointer returns it: a string as it is,
// anything else as compact JSON.
func asText(v any) (string, bool) {
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

// IDPointer is Pointer for an answer's resource ID: a JSON number with a
// zero fraction is written as the integer (4480.0 as 4480), as the row's
// integer column reads, so that one ID is not taken for another
// (IDEM-003). A string is left as it is: "4480.0" is not 4480.
func IDPointer(doc []byte, ptr string) (string, bool) {
	v, ok := pointed(doc, ptr)
	if !ok {
		return "", false
	}
	if n, isNum := v.(json.Number); isNum {
		if whole, frac, cut := strings.Cut(string(n), "."); cut && strings.Trim(frac, "0") == "" {
			if whole == "-0" {
				whole = "0"
			}
			return whole, true
		}
	}
	return asText(v)
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
