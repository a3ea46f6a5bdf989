package identifiers

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// The key column holds the key as the template sends it: a service given
// "Idempotency-Key: order-{{key}}" stores "order-" and the key. The
// mapping between a logical key and the column's value goes through the
// template (Contract.KeyTemplate) everywhere: StoredKey one way,
// LogicalKey the other, KeyPrefix for the prefix range of a plan's rows.

// keyPlaceholder is {{key}}, however spaced, as the HTTP target reads it.
var keyPlaceholder = regexp.MustCompile(`\{\{\s*key\s*\}\}`)

// anyPlaceholder is any {{name}}.
var anyPlaceholder = regexp.MustCompile(`\{\{\s*[a-zA-Z_]*\s*\}\}`)

// KeyTemplateOf picks the key's template among the values that carry
// {{key}}, in the order given (the HTTP target gives its headers by name,
// then the URL's path segments and query values, then the payload's
// strings): the first that holds {{key}} and no other placeholder, with
// {{key}} written plainly ("" for the key alone). A value that mixes the key with the tenant or
// the tag ("Key {{tenant}}:{{key}}") is a credential or a label, not
// what a key column holds; with none left the template is the key alone.
func KeyTemplateOf(values []string) string {
	for _, v := range values {
		if !keyPlaceholder.MatchString(v) {
			continue
		}
		plain := keyPlaceholder.ReplaceAllString(v, "{{key}}")
		if plain == "{{key}}" {
			return ""
		}
		if len(anyPlaceholder.FindAllString(plain, -1)) == strings.Count(plain, "{{key}}") {
			return plain
		}
	}
	return ""
}

// PayloadKeyStrings are the payload's strings that hold {{key}}, in the
// order of their JSON pointers, for KeyTemplateOf.
func PayloadKeyStrings(c model.Contract) []string {
	var out []string
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(ptr+"/"+k, x[k])
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", ptr, i), e)
			}
		case string:
			if keyPlaceholder.MatchString(x) {
				out = append(out, x)
			}
		}
	}
	walk("", map[string]any(c.Payload))
	return out
}

// keyParts is the template cut at its {{key}}s: the literal text before,
// between and after them (["order-", ""] for "order-{{key}}").
func keyParts(c model.Contract) []string {
	if c.KeyTemplate == "" {
		return []string{"", ""}
	}
	return strings.Split(c.KeyTemplate, "{{key}}")
}

// StoredKey is the key column's value for a logical key in namespace ns:
// the template rendered with the key sent (SentKey).
func StoredKey(c model.Contract, ns model.Namespace, logical string) string {
	return strings.Join(keyParts(c), SentKey(c, ns, logical))
}

// sentFromStored is the key sent, read out of a key column's value
// rendered from the template; ok is false for a value the template
// cannot have made. With several {{key}}s the key's length follows from
// the value's: every copy must then be the same.
func sentFromStored(c model.Contract, stored string) (string, bool) {
	parts := keyParts(c)
	n := len(parts) - 1
	first, last := parts[0], parts[n]
	if !strings.HasPrefix(stored, first) || !strings.HasSuffix(stored[len(first):], last) {
		return "", false
	}
	rest := stored[len(first) : len(stored)-len(last)]
	if n == 1 {
		return rest, true
	}
	literal := len(strings.Join(parts[1:n], ""))
	if (len(rest)-literal)%n != 0 || len(rest) < literal {
		return "", false
	}
	key := rest[:(len(rest)-literal)/n]
	return key, strings.Join(parts, key) == stored
}

// keyRoom is the longest key that, rendered in the template, still fits
// KeyMaxLen: the service's limit is on the value it receives.
func keyRoom(c model.Contract) int {
	parts := keyParts(c)
	return (keyMaxLen(c) - len(strings.Join(parts, ""))) / (len(parts) - 1)
}
