package identifiers

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// Tag is the action tag of a call: the namespace and the call's action, as
// the contract folds it ("i4kx9a1c-Ak1."), at most 16 characters in a
// run of up to 36^4 cases. Targets whose tables keep no key column carry it
// in the payload ({{tag}}), and rows are attributed to their action by it.
// Under a global key scope the tenant is left out, so equal payloads from
// two tenants stay equal; a keyless call's tag has no key. The payload
// variant is not in it: a variant must differ from the base in its own
// field only.
func Tag(ns model.Namespace, c model.Contract, call model.Call) string {
	a := c.ActionOf(call)
	if call.NoKey {
		a.Key = ""
	}
	// Tenants are upper case and logical keys start lower case ("k1"), so
	// they need no separator; the dot ends the tag.
	switch c.TagFormat {
	case model.IDWord:
		return sentIn(model.IDWord, ns, a.Tenant+a.Key+".")
	case model.IDDNSLabel:
		// No dot and no upper case in a DNS label: the tenant is one
		// letter, the key starts with k, and what follows the tag in
		// the field (if anything) is no letter or digit. A tag of
		// neither (keyless, global scope) ends in 0: a label ends
		// alphanumeric.
		return sentIn(model.IDDNSLabel, ns, cmp.Or(a.Tenant+a.Key, "0"))
	}
	return fmt.Sprintf("%s%s%s.", ns, a.Tenant, a.Key)
}

// ParseTag finds namespace ns's action tag, in the contract's tag format,
// in s and returns the logical tenant and key.
func ParseTag(c model.Contract, ns model.Namespace, s string) (tenant, key string, ok bool) {
	switch c.TagFormat {
	case model.IDWord:
		return parseTag(FormatPrefix(model.IDWord, ns), tagBody, s)
	case model.IDDNSLabel:
		tenant, key, ok = parseTag(FormatPrefix(model.IDDNSLabel, ns), dnsTagBody, s)
		return strings.ToUpper(tenant), key, ok
	}
	return ParseNamespaceTag(ns, s)
}

// parseTag finds the tag that starts with prefix and whose rest body
// reads as a tenant and a key.
func parseTag(prefix string, body *regexp.Regexp, s string) (tenant, key string, ok bool) {
	i := strings.Index(s, prefix)
	if i < 0 {
		return "", "", false
	}
	m := body.FindStringSubmatch(s[i+len(prefix):])
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// TagPrefix is what every tag of a namespace that starts with ns starts
// with, in the contract's tag format.
func TagPrefix(c model.Contract, ns model.Namespace) string {
	switch c.TagFormat {
	case model.IDWord, model.IDDNSLabel:
		return FormatPrefix(c.TagFormat, ns)
	}
	return string(ns)
}

// ParseTag finds this namespace's action tag in s (a column value that
// may hold more text around it) and returns the logical tenant and key.
func ParseNamespaceTag(ns model.Namespace, s string) (tenant, key string, ok bool) {
	return parseTag(string(ns), tagBody, s)
}

// tagBody is the rest of a tag: upper-case tenant, lower-case key, the
// end (a dot, or the '_' it is sent as under tag_format: word).
var tagBody = regexp.MustCompile(`^([A-Z]*)([a-z][^._\s]*)?[._]`)

// dnsTagBody is the rest of a tag under tag_format: dns-label: a tenant
// letter, a key (k, digits, a shape letter), then no letter or digit.
var dnsTagBody = regexp.MustCompile(`^(?:0|([a-z]?)(k[0-9]+[a-z]?)?)(?:[^a-z0-9]|$)`)
