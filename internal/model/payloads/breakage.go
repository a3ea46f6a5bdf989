package payloads

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/idemstress/idemstress/internal/model"
)

// Breakage is one way a call breaks a declared payload rule, so that a
// correct service refuses it: a value outside an enum, a whole number or
// number below an int or number range, a string longer than max_len, a
// required field left out.
type Breakage struct {
	// Ptr is the field, by JSON pointer.
	Ptr string
	// Rule names the rule broken: "enum", "int", "number", "max_len" or
	// "required".
	Rule string
	rule model.FieldRule
	// value is the field's value outside an enum or a range (nil for
	// max_len, which pads the variant's string, and required).
	value any
}

// Breakages lists the ways calls may break the contract's rules, by
// pointer, each pointer's required first. Call.Broken numbers them from 1.
// An enum of anything but strings or numbers cannot be left (a boolean's
// two values are all there are), a fixed field says nothing about what
// the service refuses, and a field that carries the key or the tenant is
// identity, not payload. Under refusals: untested there are none.
func Breakages(c model.Contract) []Breakage {
	if c.Refusals == model.RefusalsUntested {
		return nil
	}
	var out []Breakage
	for _, ptr := range slices.Sorted(maps.Keys(c.Fields)) {
		r := c.Fields[ptr]
		if v, ok := resolve(map[string]any(c.Payload), ptr); ok {
			if s, isString := v.(string); isString && identity(s) {
				continue // the key or the tenant: another value is another action
			}
		}
		if r.Required {
			out = append(out, Breakage{Ptr: ptr, Rule: "required", rule: r})
		}
		switch {
		case r.Fixed:
		case len(r.Enum) > 0:
			if v, ok := outsideEnum(r.Enum); ok {
				out = append(out, Breakage{Ptr: ptr, Rule: "enum", rule: r, value: v})
			}
		case r.Int != nil:
			out = append(out, Breakage{Ptr: ptr, Rule: "int", rule: r, value: int64(r.Int.Min) - 1})
		case r.Number != nil:
			out = append(out, Breakage{Ptr: ptr, Rule: "number", rule: r, value: r.Number.Min - 1})
		}
		if r.MaxLen > 0 && !r.Fixed {
			out = append(out, Breakage{Ptr: ptr, Rule: "max_len", rule: r})
		}
	}
	return out
}

// Breakage returns the breakage a call's Broken numbers (from 1).
func BreakageOf(c model.Contract, broken int) (Breakage, bool) {
	bs := Breakages(c)
	if broken < 1 || broken > len(bs) {
		return Breakage{}, false
	}
	return bs[broken-1], true
}

// outsideEnum is a value of the enum's type that is none of its members:
// a string for an enum of strings, one more than the largest for an enum
// of numbers.
func outsideEnum(enum []any) (any, bool) {
	strs, nums := 0, 0
	largest := 0.0
	for i, m := range enum {
		if _, ok := m.(string); ok {
			strs++
		}
		if f, ok := numeric(m); ok {
			nums++
			if i == 0 || f > largest {
				largest = f
			}
		}
	}
	switch {
	case strs == len(enum):
		v := "not-in-enum"
		for slices.ContainsFunc(enum, func(m any) bool { return m == v }) {
			v += "-x"
		}
		return v, true
	case nums == len(enum):
		if largest == float64(int64(largest)) {
			return int64(largest) + 1, true
		}
		return largest + 1, true
	}
	return nil, false
}

// numeric is a number's value, whether whole or not.
func numeric(x any) (float64, bool) {
	switch x.(type) {
	case int, int64, float64, json.Number:
		f, _ := number(x)
		return f, true
	}
	return 0, false
}

// apply is the value a broken field gets instead of x (a variant's value).
func (b Breakage) apply(x any) any {
	if b.Rule != "max_len" {
		return b.value
	}
	s, _ := x.(string)
	if n := b.rule.MaxLen + 1 - utf8.RuneCountInString(s); n > 0 {
		s += strings.Repeat("x", n)
	}
	return s
}

// String says what the breakage sends: "/priority = 0 outside int {min:
// 1, max: 5}", "/subject left out though required".
func (b Breakage) String() string {
	switch b.Rule {
	case "required":
		return b.Ptr + " left out, though required"
	case "max_len":
		return fmt.Sprintf("%s longer than max_len %d", b.Ptr, b.rule.MaxLen)
	case "enum":
		return fmt.Sprintf("%s = %v outside enum %v", b.Ptr, b.value, b.rule.Enum)
	case "int":
		return fmt.Sprintf("%s = %v outside int {min: %g, max: %g}", b.Ptr, b.value, b.rule.Int.Min, b.rule.Int.Max)
	default:
		return fmt.Sprintf("%s = %v outside number {min: %g, max: %g}", b.Ptr, b.value, b.rule.Number.Min, b.rule.Number.Max)
	}
}

// breakingAt is the breakage Render applies, if any.
func breakingAt(c model.Contract) (Breakage, bool) {
	if c.Broken() == 0 {
		return Breakage{}, false
	}
	return BreakageOf(c, c.Broken())
}
