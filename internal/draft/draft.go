// Package draft holds the contract idemstress init drafts, fills the
// defaults neither a document nor the flags gave, and writes it as
// commented YAML. It reads nothing and calls nothing: the request drafted
// from an OpenAPI 3 document is internal/draft/openapi's, the effect tables
// drafted from one create call's rows internal/draft/effects', and the
// calls that try the draft against the service internal/draft/calls'.
// Every guess carries a note ("guessed: …") that the rendered YAML shows as
// a comment, and every field it could not fill is left as contract.Todo, which
// run refuses with a line naming it.
package draft

import (
	"fmt"
	"strings"
)

// Draft is a contract being drafted: the fields init fills, each with the
// note its comment shows.
type Draft struct {
	Source   string // what the draft was made from, for the file's head comment
	URL      string
	Method   string
	Headers  []Header
	ID       string // JSON pointer to the ID in an ok answer, or "location"
	Body     string // "" (JSON) or "form": how the payload is sent
	Payload  map[string]any
	Rules    map[string]any // JSON pointer → rule as written in YAML ("fixed", {enum: […]}, …)
	Statuses map[string][]int
	Answers  map[string][]Matcher
	// KeyMaxLen is the longest key the service takes (0: the default).
	KeyMaxLen   int
	KeyScope    string // "" (tenant) or "global"
	KeyRequired *bool
	// The identifiers' shapes the document gives: key_format, key_pattern,
	// tenants, tenant_format, tenant_pattern. A pattern RE2 cannot compile
	// is left out, and its …Todo is the comment that says so.
	KeyFormat, KeyPattern, KeyPatternTodo          string
	Tenants                                        []any
	TenantFormat, TenantPattern, TenantPatternTodo string
	Effects                                        []Effect
	// NoInFlight: the document lists no in-progress answer, so in_flight
	// is drafted [] whatever else is guessed or probed.
	NoInFlight bool
	// Notes holds a comment per field, by its path as stress names it
	// (target.url, payload_rules./note, effects[0].key).
	Notes map[string]string
}

// Header is one header template of the request.
type Header struct{ Name, Value string }

// Matcher is one answers: matcher: a status and a value at a pointer.
type Matcher struct {
	Status int
	Equals map[string]string
	ID     string // where an ok answer of this matcher carries the ID ("": target.id)
}

// Effect is one effect table.
type Effect struct {
	Table       string
	Tenant, Key string
	ID          string
	PerAction   int
	Fields      map[string]string // column → JSON pointer
	References  *Ref
	Join        *Ref
}

// Ref names a column that points at another effect table's row.
type Ref struct{ Column, Table string }

// Note records the comment beside a field; a later note adds to it.
func (d *Draft) Note(path, format string, args ...any) {
	if d.Notes == nil {
		d.Notes = map[string]string{}
	}
	n := fmt.Sprintf(format, args...)
	if old := d.Notes[path]; old != "" {
		n = old + "; " + n
	}
	d.Notes[path] = n
}

// KeyTemplate says where the key travels: a header or body member whose
// template uses {{key}}.
func (d *Draft) KeyTemplate() bool {
	for _, h := range d.Headers {
		if strings.Contains(h.Value, "{{key}}") {
			return true
		}
	}
	return strings.Contains(d.URL, "{{key}}") || usesPlaceholder(d.Payload, "{{key}}")
}

// TenantHeader says whether a header's template uses {{tenant}}.
func (d *Draft) TenantHeader() bool {
	for _, h := range d.Headers {
		if strings.Contains(h.Value, "{{tenant}}") {
			return true
		}
	}
	return false
}

func usesPlaceholder(v any, p string) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if usesPlaceholder(e, p) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if usesPlaceholder(e, p) {
				return true
			}
		}
	case string:
		return strings.Contains(x, p)
	}
	return false
}

// Defaults fills what neither the document nor the flags said: the IETF
// draft's refusal statuses, and key_scope global when no tenant travels.
func (d *Draft) Defaults() {
	if d.Notes == nil {
		d.Notes = map[string]string{}
	}
	if d.Rules == nil {
		d.Rules = map[string]any{}
	}
	if len(d.Answers) == 0 && (len(d.Statuses) == 0 || d.NoInFlight && len(d.Statuses) == 1) {
		d.Statuses = map[string][]int{"conflict": {422}, "in_flight": {409}, "invalid": {400}}
		if d.NoInFlight {
			d.Statuses["in_flight"] = []int{}
		}
		d.Note("statuses", "guessed: the IETF draft's statuses; nothing documents the refusals")
	}
	if !strings.Contains(d.URL, "{{tenant}}") && !d.TenantHeader() && !usesPlaceholder(d.Payload, "{{tenant}}") {
		d.KeyScope = "global"
		d.Note("key_scope", "guessed: no tenant travels in the request, so the key alone names an action")
	}
	if !d.KeyTemplate() {
		d.Headers = append(d.Headers, Header{"Idempotency-Key", ""})
		d.Note("target.headers.Idempotency-Key", "nothing says where the key travels: a header, a path segment or a payload member with {{key}}")
	}
}

// NoDatabase leaves the effects a TODO: with no database there is no call
// whose rows to read.
func (d *Draft) NoDatabase() {
	d.Note("effects", "no --database-url: init reads the effect tables from what one create call writes")
}

// SetHeader sets a header of the draft from init's --header, in place of
// one the draft has of that name (the security scheme's TODO).
func (d *Draft) SetHeader(h Header) {
	for i, old := range d.Headers {
		if strings.EqualFold(old.Name, h.Name) {
			d.Headers[i] = h
			delete(d.Notes, "target.headers."+old.Name)
			d.Note("target.headers."+h.Name, "--header")
			return
		}
	}
	d.Headers = append(d.Headers, h)
}
