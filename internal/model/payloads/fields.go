package payloads

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/idemstress/idemstress/internal/model"
)

// leaf is one field variants may change, by pointer.
type leaf struct {
	ptr  string
	rule model.FieldRule
}

// variable lists the fields of the base payload that variants change, in
// pointer order: every string and number that is not fixed, and every
// field with an enum.
func variable(c model.Contract) []leaf {
	var out []leaf
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		rule := c.Fields[ptr]
		if rule.Fixed {
			return // the whole subtree stays
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(ptr+"/"+escapePointer(k), x[k])
			}
		case []any:
			for i, e := range x {
				walk(ptr+"/"+strconv.Itoa(i), e)
			}
		case string:
			// The key and the tenant are identity, never varied; a
			// unique field is the action's own (see unique.go); so is a
			// tag in an alphabet the API constrains (tag_format), which
			// a variant's suffix would break.
			if !identity(x) && !slices.Contains(c.Unique, ptr) && !(c.TagFormat != "" && c.TagFormat != model.IDAny && strings.Contains(x, "{{tag}}")) {
				out = append(out, leaf{ptr, rule})
			}
		case int, int64, float64, json.Number:
			out = append(out, leaf{ptr, rule})
		default:
			if rule.Enum != nil {
				out = append(out, leaf{ptr, rule})
			}
		}
	}
	walk("", map[string]any(c.Payload))
	return out
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// varied returns the base payload as variant v: variant 0 is the base;
// variant v ≥ 1 changes ONE field, the ((v-1) mod n)-th variable field,
// by step ((v-1) div n)+1. A real client that changes its payload changes
// a field, not all of them, and a service that fingerprints only some
// fields must be caught on the others.
func varied(c model.Contract, fill filler, v int) any {
	var target string
	step := 0
	if v > 0 {
		if fields := variable(c); len(fields) > 0 {
			target, step = fields[(v-1)%len(fields)].ptr, (v-1)/len(fields)+1
		}
	}
	// A broken call (Breaking) is the variant with one field broken.
	brk, broken := breakingAt(c)
	var walk func(ptr string, x any) any
	walk = func(ptr string, x any) any {
		switch y := x.(type) {
		case map[string]any:
			out := make(map[string]any, len(y))
			for k, e := range y {
				if s, ok := e.(string); ok && fill.drop(s) {
					continue
				}
				at := ptr + "/" + escapePointer(k)
				if broken && brk.Rule == "required" && at == brk.Ptr {
					continue
				}
				out[k] = walk(at, e)
			}
			return out
		case []any:
			out := make([]any, len(y))
			for i, e := range y {
				out[i] = walk(ptr+"/"+strconv.Itoa(i), e)
			}
			return out
		case string:
			if slices.Contains(c.Unique, ptr) {
				return uniqueValue(c, ptr, y, fill)
			}
			y = fill.replace(y)
			if ptr == target {
				x = varyField(c.Fields[ptr], y, step, v)
			} else {
				x = y
			}
		default:
			if ptr == target {
				x = varyField(c.Fields[ptr], x, step, v)
			}
		}
		if broken && ptr == brk.Ptr {
			return brk.apply(x)
		}
		return x
	}
	return walk("", map[string]any(c.Payload))
}

// ChangedField is the pointer of the field variant v changes ("" for
// variant 0, or a payload with nothing to change).
func ChangedField(c model.Contract, v int) string {
	fields := variable(c)
	if v <= 0 || len(fields) == 0 {
		return ""
	}
	return fields[(v-1)%len(fields)].ptr
}

// vary is value x moved by step (variant v, for a string's suffix).
func varyField(r model.FieldRule, x any, step, v int) any {
	// A bounded field never comes back to its base value: steps cycle
	// through the other values only.
	if len(r.Enum) > 0 {
		i := slices.IndexFunc(r.Enum, func(m any) bool { return sameJSON(m, x) })
		n := len(r.Enum)
		return r.Enum[(max(i, 0)+1+(step-1)%(n-1))%n]
	}
	if s, ok := x.(string); ok {
		suffix := fmt.Sprintf(" #%d", v)
		if r.MaxLen > 0 {
			for utf8.RuneCountInString(s)+len(suffix) > r.MaxLen && s != "" {
				_, size := utf8.DecodeLastRuneInString(s)
				s = s[:len(s)-size]
			}
		}
		return s + suffix
	}
	f, isInt := number(x)
	switch {
	case r.Int != nil:
		n := int64(r.Int.Max-r.Int.Min) + 1
		return int64(r.Int.Min) + (int64(f-r.Int.Min)+1+int64(step-1)%(n-1))%n
	case r.Number != nil:
		width := r.Number.Max - r.Number.Min
		return r.Number.Min + math.Mod(f-r.Number.Min+float64(1+(step-1)%7)*width/8, width)
	case isInt:
		return int64(f) + int64(step)
	default:
		return f + float64(step)
	}
}

func number(x any) (float64, bool) {
	switch y := x.(type) {
	case int:
		return float64(y), true
	case int64:
		return float64(y), true
	case float64:
		return y, y == math.Trunc(y)
	case json.Number:
		f, _ := y.Float64()
		_, err := y.Int64()
		return f, err == nil
	}
	return 0, false
}

func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// DistinctVariants is how many of the variants 0..limit-1 differ from every
// variant before them (under the contract's equivalence): a payload whose
// only variable field is a two-member enum has two.
func DistinctVariants(c model.Contract, limit int) int {
	var seen [][]byte
	for v := range limit {
		doc := Render(c, "", v, 0)
		if slices.ContainsFunc(seen, func(d []byte) bool { return Equivalent(c, d, doc) }) {
			return v
		}
		seen = append(seen, doc)
	}
	return limit
}

// CheckFields reports a field rule that cannot work with the base payload,
// naming the field: it points at nothing, it has an enum of one member or
// a base value outside its rule, or rules that contradict each other.
func CheckFields(c model.Contract) error {
	base := Render(c, "", 0, 0)
	for _, ptr := range slices.Sorted(maps.Keys(c.Fields)) {
		r := c.Fields[ptr]
		at := "fields." + ptr
		text, ok := Pointer(base, ptr)
		if !ok || !strings.HasPrefix(ptr, "/") {
			return fmt.Errorf("%s: points at nothing in the payload %s", at, base)
		}
		raw := rawJSON(base, ptr, text)
		var value any
		if err := json.Unmarshal([]byte(raw), &value); err != nil {
			value = text
		}
		kinds := 0
		for _, set := range []bool{r.Fixed, r.Enum != nil, r.Int != nil, r.Number != nil} {
			if set {
				kinds++
			}
		}
		f, isInt := number(value)
		_, isNum := value.(float64)
		s, isString := value.(string)
		switch {
		case kinds > 1:
			return fmt.Errorf("%s: give one of fixed, enum, int or number", at)
		case r.Enum != nil && len(r.Enum) < 2:
			return fmt.Errorf("%s: an enum needs at least two members for a variant to pick another (got %d); use fixed for a field that never changes", at, len(r.Enum))
		case r.Enum != nil && !slices.ContainsFunc(r.Enum, func(m any) bool { return sameJSON(m, value) }):
			return fmt.Errorf("%s: the payload's value %s is not one of the enum's members", at, raw)
		case r.Int != nil && (r.Int.Min >= r.Int.Max || r.Int.Min != math.Trunc(r.Int.Min) || r.Int.Max != math.Trunc(r.Int.Max)):
			return fmt.Errorf("%s: int {min: %g, max: %g} needs whole numbers with min < max", at, r.Int.Min, r.Int.Max)
		case r.Int != nil && (!isInt || f < r.Int.Min || f > r.Int.Max):
			return fmt.Errorf("%s: the payload's value %s is not a whole number in int {min: %g, max: %g}", at, raw, r.Int.Min, r.Int.Max)
		case r.Number != nil && r.Number.Min >= r.Number.Max:
			return fmt.Errorf("%s: number {min: %g, max: %g} needs min < max", at, r.Number.Min, r.Number.Max)
		case r.Number != nil && (!isNum || f < r.Number.Min || f > r.Number.Max):
			return fmt.Errorf("%s: the payload's value %s is not a number in number {min: %g, max: %g}", at, raw, r.Number.Min, r.Number.Max)
		case r.MaxLen != 0 && !isString:
			return fmt.Errorf("%s: max_len applies to strings; the payload has %s", at, raw)
		case r.MaxLen != 0 && r.MaxLen < 4:
			return fmt.Errorf("%s: max_len %d leaves no room for a variant's suffix (\" #2\"); want 4 or more", at, r.MaxLen)
		case r.MaxLen != 0 && utf8.RuneCountInString(s) > r.MaxLen:
			return fmt.Errorf("%s: the payload's value is %d characters, over max_len %d", at, utf8.RuneCountInString(s), r.MaxLen)
		}
	}
	return nil
}

// rawJSON is the JSON text of the value at ptr (Pointer gives strings
// unquoted).
func rawJSON(doc []byte, ptr, text string) string {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return text
	}
	x, ok := resolve(v, ptr)
	if !ok {
		return text
	}
	b, err := json.Marshal(x)
	if err != nil {
		return text
	}
	return string(b)
}
