package model

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
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

// dnsLabelMax is the longest DNS-1123 label.
const dnsLabelMax = 63

// Valid reports a format idemstress can make identifiers in ("" is IDAny).
func (f IDFormat) Valid() bool { return f == "" || f == IDAny || formatREs[f] != nil }

// Accepts reports whether s has the format.
func (f IDFormat) Accepts(s string) bool {
	re := formatREs[f]
	return re == nil || re.MatchString(s)
}

// sent is the identifier made of namespace ns and the logical text rest
// (a logical name, shaped as its key shape says) in format f.
func (f IDFormat) sent(ns Namespace, rest string) string {
	switch f {
	case IDWord:
		return wordAlphabet.Replace(string(ns) + rest)
	case IDDNSLabel:
		return strings.ToLower(string(ns) + rest)
	case IDUUID:
		return uuidText(uuidData(ns, rest))
	}
	return string(ns) + rest
}

// logical is the inverse of sent: the logical text after the namespace,
// in the alphabet it was made in (lower case for a DNS label: the caller
// knows the case of its names); ok is false outside the namespace.
func (f IDFormat) logical(ns Namespace, s string) (string, bool) {
	switch f {
	case IDWord:
		rest, ok := strings.CutPrefix(s, f.Prefix(ns))
		return strings.ReplaceAll(rest, "_", "-"), ok
	case IDDNSLabel:
		return strings.CutPrefix(s, f.Prefix(ns))
	case IDUUID:
		return uuidLogical(ns, s)
	}
	return ns.Logical(s)
}

// Prefix is what every identifier of a namespace that starts with ns
// starts with, in format f: what a prefix range on a key or tenant column
// finds a plan's (or a run's) rows by.
func (f IDFormat) Prefix(ns Namespace) string {
	switch f {
	case IDWord:
		return wordAlphabet.Replace(string(ns))
	case IDDNSLabel:
		return strings.ToLower(string(ns))
	case IDUUID:
		return uuidPrefix(ns)
	}
	return string(ns)
}

// wordAlphabet sends the namespace's separators as '_', the one \w
// character a namespace and a logical name never hold.
var wordAlphabet = strings.NewReplacer("-", "_", ".", "_")

// idRule is how one kind of identifier is made: the format, and the
// pattern (nil for none) every value must match as well.
type idRule struct {
	format IDFormat
	re     *regexp.Regexp
}

// accepts reports whether a value the rule made is one the API takes.
func (r idRule) accepts(s string) bool {
	return r.format.Accepts(s) && (r.re == nil || r.re.MatchString(s))
}

// ruleOf resolves a format or pattern: a pattern is served by the first
// format whose plain values (names, of a sample namespace) it matches.
// err names the field when neither can be served.
func ruleOf(field string, format IDFormat, pattern string, names []string) (idRule, error) {
	switch {
	case format != "" && pattern != "":
		return idRule{}, fmt.Errorf("%s_format and %s_pattern are both given: give one", field, field)
	case !format.Valid():
		return idRule{}, fmt.Errorf("%s_format %q: want any, uuid, word or dns-label", field, format)
	case pattern == "":
		return idRule{format: format}, nil
	}
	re, err := compilePattern(pattern)
	if err != nil {
		return idRule{}, fmt.Errorf("%s_pattern %q: not a regular expression RE2 compiles (no lookaround, no backreferences): %v", field, pattern, err)
	}
	for _, f := range IDFormats {
		r := idRule{format: f, re: re}
		ok := true
		for _, name := range names {
			ok = ok && r.accepts(f.sent(sampleNamespace, name))
		}
		if ok {
			return r, nil
		}
	}
	return idRule{}, fmt.Errorf("%s_pattern %q: no value idemstress can make matches it (tried %s, e.g. %q, %q); "+
		"give %s_format, or widen the pattern to one of these forms", field, pattern, joinFormats(), IDWord.sent(sampleNamespace, names[0]), IDUUID.sent(sampleNamespace, names[0]), field)
}

func joinFormats() string {
	var s []string
	for _, f := range IDFormats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// sampleNamespace is a namespace as a run makes them, long for its kind,
// to try a pattern with.
const sampleNamespace = Namespace("is4d980a21-123456-")

// patterns holds compiled key and tenant patterns: identifiers are made
// for every call and read back for every row.
var patterns sync.Map // string → *regexp.Regexp or error

// compilePattern compiles an RE2 pattern anchored as a whole, once.
func compilePattern(p string) (*regexp.Regexp, error) {
	if v, ok := patterns.Load(p); ok {
		if err, bad := v.(error); bad {
			return nil, err
		}
		return v.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		patterns.Store(p, err)
		return nil, err
	}
	patterns.Store(p, re)
	return re, nil
}
