package identifiers

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/idemstress/idemstress/internal/model"
)

// dnsLabelMax is the longest DNS-1123 label.
const dnsLabelMax = 63

// sent is the identifier made of namespace ns and the logical text rest
// (a logical name, shaped as its key shape says) in format f.
func sentIn(f model.IDFormat, ns model.Namespace, rest string) string {
	switch f {
	case model.IDWord:
		return wordAlphabet.Replace(string(ns) + rest)
	case model.IDDNSLabel:
		return strings.ToLower(string(ns) + rest)
	case model.IDUUID:
		return uuidText(uuidData(ns, rest))
	}
	return string(ns) + rest
}

// logical is the inverse of sent: the logical text after the namespace,
// in the alphabet it was made in (lower case for a DNS label: the caller
// knows the case of its names); ok is false outside the namespace.
func logicalIn(f model.IDFormat, ns model.Namespace, s string) (string, bool) {
	switch f {
	case model.IDWord:
		rest, ok := strings.CutPrefix(s, FormatPrefix(f, ns))
		return strings.ReplaceAll(rest, "_", "-"), ok
	case model.IDDNSLabel:
		return strings.CutPrefix(s, FormatPrefix(f, ns))
	case model.IDUUID:
		return uuidLogical(ns, s)
	}
	return ns.Logical(s)
}

// Prefix is what every identifier of a namespace that starts with ns
// starts with, in format f: what a prefix range on a key or tenant column
// finds a plan's (or a run's) rows by.
func FormatPrefix(f model.IDFormat, ns model.Namespace) string {
	switch f {
	case model.IDWord:
		return wordAlphabet.Replace(string(ns))
	case model.IDDNSLabel:
		return strings.ToLower(string(ns))
	case model.IDUUID:
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
	format model.IDFormat
	re     *regexp.Regexp
}

// accepts reports whether a value the rule made is one the API takes.
func (r idRule) accepts(s string) bool {
	return r.format.Accepts(s) && (r.re == nil || r.re.MatchString(s))
}

// ruleOf resolves a format or pattern: a pattern is served by the first
// format whose plain values (names, of a sample namespace) it matches.
// err names the field when neither can be served.
func ruleOf(field string, format model.IDFormat, pattern string, names []string) (idRule, error) {
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
	for _, f := range model.IDFormats {
		r := idRule{format: f, re: re}
		ok := true
		for _, name := range names {
			ok = ok && r.accepts(sentIn(f, sampleNamespace, name))
		}
		if ok {
			return r, nil
		}
	}
	return idRule{}, fmt.Errorf("%s_pattern %q: no value idemstress can make matches it (tried %s, e.g. %q, %q); "+
		"give %s_format, or widen the pattern to one of these forms", field, pattern, joinFormats(), sentIn(model.IDWord, sampleNamespace, names[0]), sentIn(model.IDUUID, sampleNamespace, names[0]), field)
}

func joinFormats() string {
	var s []string
	for _, f := range model.IDFormats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// sampleNamespace is a namespace as a run makes them, long for its kind,
// to try a pattern with.
const sampleNamespace = model.Namespace("is4d980a21-123456-")

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
