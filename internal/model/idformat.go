package model

import (
	"regexp"
)

// IDFormat is a form the API demands of an identifier (a key or a tenant):
// real APIs refuse other values before doing anything (Google's requestId
// is a UUID, AWS's ClientToken matches \w+, a Kubernetes name is a DNS-1123
// label). Every format keeps the namespace a prefix of the value, so that a
// plan's rows are found by a prefix range and map back to their actions.
type IDFormat string

const (
	// IDAny: the namespace and the logical name as they are
	// ("is4d980a21-1-k1"), in every key shape. The default.
	IDAny IDFormat = "any"
	// IDWord: ASCII letters, digits and '_' (\w+): the namespace's '-' is
	// sent as '_' ("is4d980a21_1_k1").
	IDWord IDFormat = "word"
	// IDDNSLabel: a DNS-1123 label, lower case letters, digits and '-',
	// starting and ending alphanumeric, at most 63 characters
	// ("is4d980a21-1-k1"; tenant A is "…-a").
	IDDNSLabel IDFormat = "dns-label"
	// IDUUID: a version-4 UUID in its canonical lower-case text form; the
	// namespace and the logical name are coded in its hex digits, the
	// namespace first (see uuidData).
	IDUUID IDFormat = "uuid"
)

// IDFormats lists the formats in the order a key_pattern tries them.
var IDFormats = []IDFormat{IDAny, IDWord, IDDNSLabel, IDUUID}

// formatREs is what each format accepts, anchored.
var formatREs = map[IDFormat]*regexp.Regexp{
	IDWord:     regexp.MustCompile(`^\w+$`),
	IDDNSLabel: regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`),
	IDUUID:     regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
}

// Valid reports a format idemstress can make identifiers in ("" is IDAny).
func (f IDFormat) Valid() bool { return f == "" || f == IDAny || formatREs[f] != nil }

// Accepts reports whether s has the format.
func (f IDFormat) Accepts(s string) bool {
	re := formatREs[f]
	return re == nil || re.MatchString(s)
}
