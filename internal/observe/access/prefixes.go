package access

import (
	"strings"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// Where a namespace stands in a row: the contract's identifier formats
// make the key's prefix, the tenant's (none under fixed tenants) and the
// tag's differ from the namespace's text, and from each other (a UUID
// key, a DNS-label tenant). Each is a parameter of its own.

// NewFinder finds namespace ns's rows, with the marks m (nil: none).
func NewFinder(c model.Contract, info map[string]*TableInfo, byTable map[string]effect.Effect, m Marks, ns model.Namespace) *Finder {
	return &Finder{info: info, byTable: byTable, marks: m, a: newArgs(identifiers.KeyPrefix(c, ns)), c: c, space: ns}
}

// nsOf is what col's values start with in the rows of the namespace: the
// key's or the tenant's prefix. ok is false for a tenant column under
// fixed tenants, which carries no namespace.
func (f *Finder) nsOf(e effect.Effect, col string) (string, bool) {
	if col == e.Tenant && col != e.Key {
		return identifiers.TenantPrefix(f.c, f.space)
	}
	return identifiers.KeyPrefix(f.c, f.space), true
}

// nsArg is the placeholder of nsOf(e, col).
func (f *Finder) nsArg(e effect.Effect, col string) string {
	p, _ := f.nsOf(e, col)
	if col == e.Tenant && col != e.Key && p != identifiers.KeyPrefix(f.c, f.space) {
		return f.a.add("tenant-ns", p)
	}
	return "$1"
}

// tenantNamespaced says whether the tenant column carries the namespace.
func (f *Finder) tenantNamespaced(e effect.Effect) bool {
	_, ok := f.nsOf(e, e.Tenant)
	return ok && e.Tenant != ""
}

// tagArg is the placeholder of the tag's prefix.
func (f *Finder) tagArg() string {
	if p := identifiers.TagPrefix(f.c, f.space); p != identifiers.KeyPrefix(f.c, f.space) {
		return f.a.add("tag-ns", p)
	}
	return "$1"
}

// uuidRange is the range of UUIDs whose text starts with prefix: ok is
// false for a prefix no UUID's text starts with (or an empty one).
func uuidRange(prefix string) (lo, hi string, ok bool) {
	const zero = "00000000-0000-0000-0000-000000000000"
	if prefix == "" || len(prefix) > len(zero) {
		return "", "", false
	}
	digits := []byte(zero)
	last := -1
	for i := 0; i < len(prefix); i++ {
		switch {
		case zero[i] == '-' && prefix[i] == '-':
		case zero[i] != '-' && (prefix[i] >= '0' && prefix[i] <= '9' || prefix[i] >= 'a' && prefix[i] <= 'f'):
			digits[i], last = prefix[i], i
		default:
			return "", "", false
		}
	}
	lo = string(digits)
	// hi: the prefix's hex number plus one, the rest zeros; a prefix of
	// only f's has no UUID above its range but the greatest.
	up := []byte(lo)
	for i := last; i >= 0; i-- {
		if up[i] == '-' {
			continue
		}
		if up[i] != 'f' {
			up[i] = "0123456789abcdef"[strings.IndexByte("0123456789abcdef", up[i])+1]
			return lo, string(up), true
		}
		up[i] = '0'
	}
	return "", "", false
}
