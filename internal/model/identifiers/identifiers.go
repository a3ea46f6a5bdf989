// Package identifiers makes and reads back the identifiers a call sends
// under the contract's identifier rules: keys and tenants in their format
// or pattern (any, word, dns-label, uuid), with their shapes and the key
// template, the action tag and its parsing, and whether a namespace leaves
// room for them. The namespace and the logical key are internal/model's;
// the payload that carries them is internal/model/payloads'.
package identifiers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// sampleKeys and sampleTenants are the plain logical names a key_pattern
// or tenant_pattern is tried with.
var (
	sampleKeys    = []string{"k1", "k4"}
	sampleTenants = []string{"A", "C"}
)

// keyRule is how keys are made; a contract whose key rule cannot be
// served (ValidateIdentifiers says so) makes them as IDAny does.
func keyRule(c model.Contract) idRule {
	r, err := ruleOf("key", c.KeyFormat, c.KeyPattern, sampleKeys)
	if err != nil {
		return idRule{format: model.IDAny}
	}
	return r
}

func tenantRule(c model.Contract) idRule {
	r, err := ruleOf("tenant", c.TenantFormat, c.TenantPattern, sampleTenants)
	if err != nil {
		return idRule{format: model.IDAny}
	}
	return r
}

// KeyFormatOf is the format keys are made in (for a key_pattern: the one
// chosen for it).
func KeyFormatOf(c model.Contract) model.IDFormat { return cmpFormat(keyRule(c).format) }

// TenantFormatOf is the format generated tenants are made in.
func TenantFormatOf(c model.Contract) model.IDFormat { return cmpFormat(tenantRule(c).format) }

func cmpFormat(f model.IDFormat) model.IDFormat {
	if f == "" {
		return model.IDAny
	}
	return f
}

// ValidateIdentifiers reports identifier fields that say something
// impossible, naming the field.
func Validate(c model.Contract) error {
	if _, err := ruleOf("key", c.KeyFormat, c.KeyPattern, sampleKeys); err != nil {
		return err
	}
	if _, err := ruleOf("tenant", c.TenantFormat, c.TenantPattern, sampleTenants); err != nil {
		return err
	}
	if len(c.Tenants) > 0 && (c.TenantFormat != "" || c.TenantPattern != "") {
		return fmt.Errorf("tenants: fixed tenant values are sent as they are; tenant_format and tenant_pattern are for generated tenants: give one or the other")
	}
	for i, t := range c.Tenants {
		if t == "" || slices.Contains(c.Tenants[:i], t) {
			return fmt.Errorf("tenants[%d]: %q: want distinct, non-empty tenant values", i, t)
		}
	}
	switch c.TagFormat {
	case "", model.IDAny, model.IDWord, model.IDDNSLabel:
	default:
		return fmt.Errorf("tag_format %q: want any, word or dns-label", c.TagFormat)
	}
	if KeyFormatOf(c) == model.IDUUID {
		if room := UUIDRoom(sampleNamespace, "k4"); room < 0 {
			return fmt.Errorf("key_format uuid: a namespace such as %q leaves no room in a UUID for the key", sampleNamespace)
		}
	}
	return nil
}

// NamespaceFits reports whether the identifiers of namespace ns fit their
// formats (a UUID holds 30 hex digits of data): a run checks its
// namespace, with room for its case numbers, before it starts.
func NamespaceFits(c model.Contract, ns model.Namespace) bool {
	if KeyFormatOf(c) == model.IDUUID && UUIDRoom(ns, "k99") < 0 {
		return false
	}
	if len(c.Tenants) == 0 && TenantFormatOf(c) == model.IDUUID && UUIDRoom(ns, "Z") < 0 {
		return false
	}
	return true
}

// KeyShapes are the key shapes whose keys the contract's format (and
// pattern) admits, in the order of Shapes: a shape whose key the API
// would refuse, or that the format cannot tell from the plain key (a
// DNS label has no upper case), is not drawn. A UUID key has no shapes:
// its text is fixed in length and alphabet, and an upper-case UUID is the
// same UUID.
func KeyShapes(c model.Contract) []byte {
	r := keyRule(c)
	if r.format == model.IDUUID {
		return nil
	}
	var out []byte
	for _, shape := range model.Shapes {
		shaped := model.Shaped("k1", shape)
		sent := SentKey(c, sampleNamespace, shaped)
		back, ok := LogicalKey(c, sampleNamespace, StoredKey(c, sampleNamespace, shaped))
		if r.accepts(sent) && ok && back == shaped {
			out = append(out, shape)
		}
	}
	return out
}

// ShapeName says what a key shape changes, for coverage and findings.
func ShapeName(shape byte) string {
	switch shape {
	case model.ShapeSpace:
		return "trailing white space"
	case model.ShapeCase:
		return "another letter case"
	case model.ShapeUnicode:
		return "non-ASCII"
	case model.ShapeLong:
		return "long"
	}
	return "plain"
}

// KeyShape is the shape of a logical key (0: plain).
func KeyShape(logical string) byte {
	_, shape := model.SplitShape(logical)
	return shape
}

// KeyPrefix is what the key column's value of every call of a namespace
// that starts with ns starts with: the template's text before its first
// {{key}}, then the key's prefix. A prefix range on a key column finds them.
func KeyPrefix(c model.Contract, ns model.Namespace) string {
	return keyParts(c)[0] + FormatPrefix(keyRule(c).format, ns)
}

// TenantPrefix is what every tenant of a namespace that starts with ns
// starts with; ok is false for fixed tenants, which carry no namespace.
func TenantPrefix(c model.Contract, ns model.Namespace) (string, bool) {
	if len(c.Tenants) > 0 {
		return "", false
	}
	return FormatPrefix(tenantRule(c).format, ns), true
}

// SentTenant is the tenant sent for a logical tenant in namespace ns:
// the fixed value of its place (A the first), or the namespace and the
// name in the tenants' format.
func SentTenant(c model.Contract, ns model.Namespace, logical string) string {
	if len(c.Tenants) > 0 {
		if i := tenantIndex(logical); i >= 0 && i < len(c.Tenants) {
			return c.Tenants[i]
		}
		return logical
	}
	return sentIn(tenantRule(c).format, ns, logical)
}

// LogicalTenant turns a tenant read back from the service into its
// logical name; ok is false for a value outside the namespace (or none of
// the fixed tenants).
func LogicalTenant(c model.Contract, ns model.Namespace, sent string) (string, bool) {
	if len(c.Tenants) > 0 {
		if i := slices.Index(c.Tenants, sent); i >= 0 {
			return string(rune('A' + i)), true
		}
		return "", false
	}
	f := tenantRule(c).format
	rest, ok := logicalIn(f, ns, sent)
	if f == model.IDDNSLabel {
		rest = strings.ToUpper(rest) // logical tenants are upper case
	}
	return rest, ok
}

// tenantIndex is the place of logical tenant "A", "B"… (-1 for another name).
func tenantIndex(logical string) int {
	if len(logical) != 1 || logical[0] < 'A' || logical[0] > 'Z' {
		return -1
	}
	return int(logical[0] - 'A')
}
