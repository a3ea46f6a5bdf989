package openapi

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// keyFormats are the schema formats the contract's key_format and
// tenant_format name (a hostname is no DNS label: it may hold dots).
var keyFormats = map[string]string{"uuid": "uuid"}

// keyShape drafts what the key's schema says of its shape: format uuid as
// key_format, a pattern RE2 compiles as key_pattern (one it cannot is a
// TODO comment), maxLength as key_max_len.
func (d drafter) keyShape(s *openapi3.SchemaRef) {
	if s == nil || s.Value == nil {
		return
	}
	v := s.Value
	if v.MaxLength != nil {
		d.KeyMaxLen = int(*v.MaxLength)
		d.Note("key_max_len", "the document's maxLength of the key")
	}
	if f, ok := keyFormats[v.Format]; ok {
		d.KeyFormat = f
		d.Note("key_format", "the document's format %s of the key", v.Format)
	}
	if v.Pattern != "" {
		d.KeyPattern, d.KeyPatternTodo = d.pattern("key_pattern", "the key", v.Pattern)
	}
}

// tenantShape drafts what the tenant's schema says: an enum as tenants:,
// format uuid as tenant_format, a pattern as tenant_pattern.
func (d drafter) tenantShape(name string, s *openapi3.SchemaRef) {
	if s == nil || s.Value == nil {
		return
	}
	v := s.Value
	if len(v.Enum) > 0 {
		d.Tenants = v.Enum
		d.Note("tenants", "the document's enum of %s", name)
		return
	}
	if f, ok := keyFormats[v.Format]; ok {
		d.TenantFormat = f
		d.Note("tenant_format", "the document's format %s of %s", v.Format, name)
	}
	if v.Pattern != "" {
		d.TenantPattern, d.TenantPatternTodo = d.pattern("tenant_pattern", name, v.Pattern)
	}
}

// pattern is a documented pattern as the contract can hold it: the
// pattern itself when RE2 compiles it, else "" and a TODO that quotes it,
// says why, and offers the pattern without its lookarounds when that
// compiles (a run draws identifiers from the pattern, so one that cannot
// be compiled cannot be kept; the rest of the draft still can).
func (d drafter) pattern(field, of, p string) (string, string) {
	if _, err := regexp.Compile(p); err == nil {
		d.Note(field, "the document's pattern of %s", of)
		return p, ""
	}
	what := "a construct"
	switch {
	case lookaround.MatchString(p):
		what = "a lookaround " + lookaround.FindString(p)
	case backref.MatchString(p):
		what = "a backreference " + backref.FindString(p)
	case strings.Contains(p, "(?>"):
		what = "an atomic group (?>"
	}
	todo := fmt.Sprintf("TODO %s: the document's pattern of %s, %q, uses %s, which RE2 cannot compile", field, of, p, what)
	if simpler, ok := dropLookarounds(p); ok && simpler != p {
		if _, err := regexp.Compile(simpler); err == nil {
			todo += fmt.Sprintf("; without it: %s: %q (it takes more than the document's pattern: check it)", field, simpler)
			return "", todo
		}
	}
	return "", todo + "; write an RE2 pattern that says what the API takes, or leave it out"
}

var (
	lookaround = regexp.MustCompile(`\(\?<?[=!]`)
	backref    = regexp.MustCompile(`\\[1-9]|\\k<`)
)

// dropLookarounds removes each lookahead and lookbehind group, with what
// it holds, from p; false when the groups do not balance.
func dropLookarounds(p string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); {
		loc := lookaround.FindStringIndex(p[i:])
		if loc == nil {
			b.WriteString(p[i:])
			break
		}
		b.WriteString(p[i : i+loc[0]])
		depth, j := 0, i+loc[0]
		for ; j < len(p); j++ {
			switch p[j] {
			case '\\':
				j++
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if depth != 0 {
			return "", false
		}
		i = j + 1
	}
	return b.String(), true
}
