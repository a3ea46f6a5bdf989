package model

import (
	"fmt"
	"regexp"
	"strings"
)

// Namespace is a run- and case-unique prefix put in front of every tenant and
// key a plan sends, so plans never see each other's rows and no cleanup is
// ever needed.
type Namespace string

// Tenant is the tenant string sent to the target for a logical tenant.
func (ns Namespace) Tenant(logical string) string { return string(ns) + logical }

// Key is the idempotency key sent to the target for a logical key.
func (ns Namespace) Key(logical string) string { return string(ns) + logical }

// Logical strips the namespace from a tenant or key read back from the
// target; ok is false for strings outside the namespace.
func (ns Namespace) Logical(s string) (string, bool) {
	if !strings.HasPrefix(s, string(ns)) {
		return "", false
	}
	return s[len(ns):], true
}

// Tag is the action tag of a call: the namespace and the call's action, as
// the contract folds it ("i4kx9a1c-Ak1."), at most 16 characters in a
// run of up to 36^4 cases. Targets whose tables keep no key column carry it
// in the payload ({{tag}}), and rows are attributed to their action by it.
// Under a global key scope the tenant is left out, so equal payloads from
// two tenants stay equal; a keyless call's tag has no key. The payload
// variant is not in it: a variant must differ from the base in its own
// field only.
func (ns Namespace) Tag(c Contract, call Call) string {
	a := c.ActionOf(call)
	if call.NoKey {
		a.Key = ""
	}
	// Tenants are upper case and logical keys start lower case ("k1"), so
	// they need no separator; the dot ends the tag.
	return fmt.Sprintf("%s%s%s.", ns, a.Tenant, a.Key)
}

// ParseTag finds this namespace's action tag in s (a column value that
// may hold more text around it) and returns the logical tenant and key.
func (ns Namespace) ParseTag(s string) (tenant, key string, ok bool) {
	i := strings.Index(s, string(ns))
	if i < 0 {
		return "", "", false
	}
	m := tagBody.FindStringSubmatch(s[i+len(ns):])
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

var tagBody = regexp.MustCompile(`^([A-Z]*)([a-z][^.\s]*)?\.`)
