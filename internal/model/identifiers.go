package model

import (
	"fmt"
	"slices"
	"strings"
)

// sampleKeys and sampleTenants are the plain logical names a key_pattern
// or tenant_pattern is tried with.
var (
	sampleKeys    = []string{"k1", "k4"}
	sampleTenants = []string{"A", "C"}
)

// keyRule is how keys are made; a contract whose key rule cannot be
// served (ValidateIdentifiers says so) makes them as IDAny does.
func (c Contract) keyRule() idRule {
	r, err := ruleOf("key", c.KeyFormat, c.KeyPattern, sampleKeys)
	if err != nil {
		return idRule{format: IDAny}
	}
	return r
}

func (c Contract) tenantRule() idRule {
	r, err := ruleOf("tenant", c.TenantFormat, c.TenantPattern, sampleTenants)
	if err != nil {
		return idRule{format: IDAny}
	}
	return r
}

// KeyFormatOf is the format keys are made in (for a key_pattern: the one
// chosen for it).
func (c Contract) KeyFormatOf() IDFormat { return cmpFormat(c.keyRule().format) }

// TenantFormatOf is the format generated tenants are made in.
func (c Contract) TenantFormatOf() IDFormat { return cmpFormat(c.tenantRule().format) }

func cmpFormat(f IDFormat) IDFormat {
	if f == "" {
		return IDAny
	}
	return f
}

// ValidateIdentifiers reports identifier fields that say something
// impossible, naming the field.
func (c Contract) ValidateIdentifiers() error {
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
	case "", IDAny, IDWord, IDDNSLabel:
	default:
		return fmt.Errorf("tag_format %q: want any, word or dns-label", c.TagFormat)
	}
	if c.KeyFormatOf() == IDUUID {
		if room := UUIDRoom(sampleNamespace, "k4"); room < 0 {
			return fmt.Errorf("key_format uuid: a namespace such as %q leaves no room in a UUID for the key", sampleNamespace)
		}
	}
	return nil
}

// NamespaceFits reports whether the identifiers of namespace ns fit their
// formats (a UUID holds 30 hex digits of data): a run checks its
// namespace, with room for its case numbers, before it starts.
func (c Contract) NamespaceFits(ns Namespace) bool {
	if c.KeyFormatOf() == IDUUID && UUIDRoom(ns, "k99") < 0 {
		return false
	}
	if len(c.Tenants) == 0 && c.TenantFormatOf() == IDUUID && UUIDRoom(ns, "Z") < 0 {
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
func (c Contract) KeyShapes() []byte {
	r := c.keyRule()
	if r.format == IDUUID {
		return nil
	}
	var out []byte
	for _, shape := range Shapes {
		shaped := Shaped("k1", shape)
		sent := c.SentKey(sampleNamespace, shaped)
		back, ok := c.LogicalKey(sampleNamespace, c.StoredKey(sampleNamespace, shaped))
		if r.accepts(sent) && ok && back == shaped {
			out = append(out, shape)
		}
	}
	return out
}

// ShapeName says what a key shape changes, for coverage and findings.
func ShapeName(shape byte) string {
	switch shape {
	case ShapeSpace:
		return "trailing white space"
	case ShapeCase:
		return "another letter case"
	case shapeUnicode:
		return "non-ASCII"
	case shapeLong:
		return "long"
	}
	return "plain"
}

// KeyShape is the shape of a logical key (0: plain).
func KeyShape(logical string) byte {
	_, shape := splitShape(logical)
	return shape
}

// KeyPrefix is what the key column's value of every call of a namespace
// that starts with ns starts with: the template's text before its first
// {{key}}, then the key's prefix. A prefix range on a key column finds them.
func (c Contract) KeyPrefix(ns Namespace) string {
	return c.keyParts()[0] + c.keyRule().format.Prefix(ns)
}

// TenantPrefix is what every tenant of a namespace that starts with ns
// starts with; ok is false for fixed tenants, which carry no namespace.
func (c Contract) TenantPrefix(ns Namespace) (string, bool) {
	if len(c.Tenants) > 0 {
		return "", false
	}
	return c.tenantRule().format.Prefix(ns), true
}

// SentTenant is the tenant sent for a logical tenant in namespace ns:
// the fixed value of its place (A the first), or the namespace and the
// name in the tenants' format.
func (c Contract) SentTenant(ns Namespace, logical string) string {
	if len(c.Tenants) > 0 {
		if i := tenantIndex(logical); i >= 0 && i < len(c.Tenants) {
			return c.Tenants[i]
		}
		return logical
	}
	return c.tenantRule().format.sent(ns, logical)
}

// LogicalTenant turns a tenant read back from the service into its
// logical name; ok is false for a value outside the namespace (or none of
// the fixed tenants).
func (c Contract) LogicalTenant(ns Namespace, sent string) (string, bool) {
	if len(c.Tenants) > 0 {
		if i := slices.Index(c.Tenants, sent); i >= 0 {
			return string(rune('A' + i)), true
		}
		return "", false
	}
	f := c.tenantRule().format
	rest, ok := f.logical(ns, sent)
	if f == IDDNSLabel {
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
