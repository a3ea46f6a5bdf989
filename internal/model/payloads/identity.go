package payloads

import (
	"maps"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// Identity is what names a call's action in a request, as sent: its
// tenant, its key (NoKey: the call carries none) and its action tag. A
// payload may carry it ({{tenant}}, {{key}}, {{tag}} in its strings, e.g.
// Square's "idempotency_key": "{{key}}").
type Identity struct {
	Tenant, Key, Tag string
	NoKey            bool
	// Unique is the tag of the action whose unique values (Contract.Unique)
	// the call sends: "" for its own, Tag.
	Unique string
}

// filler fills a payload's placeholders: only {{tag}} (tagOnly, the
// payload as judged), or all three (the body as sent).
type filler struct {
	id      Identity
	tagOnly bool
}

func (f filler) replace(s string) string {
	if !strings.Contains(s, "{{") {
		return s // no placeholder: most strings of a payload, and no replacer built
	}
	s = strings.ReplaceAll(s, "{{tag}}", f.id.Tag)
	if f.tagOnly {
		return s
	}
	return strings.NewReplacer("{{key}}", f.id.Key, "{{tenant}}", f.id.Tenant).Replace(s)
}

// drop says a member with value s is left out of the body: it carries
// the key, and the call is sent without one.
func (f filler) drop(s string) bool {
	return !f.tagOnly && f.id.NoKey && strings.Contains(s, "{{key}}")
}

// identity reports a string that carries the key or the tenant.
func identity(s string) bool {
	return strings.Contains(s, "{{key}}") || strings.Contains(s, "{{tenant}}")
}

// Carries reports whether the payload carries placeholder name ("key",
// "tenant", "tag") in one of its strings, at any depth.
func Carries(c model.Contract, name string) bool {
	return anyString(c, func(s string) bool { return strings.Contains(s, "{{"+name+"}}") })
}

// CarriesAlone reports whether some string of the payload is placeholder
// name and nothing else ("idempotency_key": "{{tag}}"): a field that holds
// an identifier, where a tag inside a text ("Printer offline [{{tag}}]")
// only marks the row as the action's.
func CarriesAlone(c model.Contract, name string) bool {
	return anyString(c, func(s string) bool { return s == "{{"+name+"}}" })
}

// anyString reports whether some string of the payload, at any depth,
// meets f.
func anyString(c model.Contract, f func(string) bool) bool {
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			return slices.ContainsFunc(slices.Collect(maps.Values(x)), walk)
		case []any:
			return slices.ContainsFunc(x, walk)
		case string:
			return f(x)
		}
		return false
	}
	return walk(map[string]any(c.Payload))
}
