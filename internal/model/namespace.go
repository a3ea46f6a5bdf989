package model

import (
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
