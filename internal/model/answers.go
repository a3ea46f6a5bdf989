package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Matcher recognises one kind of answer: a status in Status and every body
// condition holding. Real APIs need the body: Square answers 400 both to a
// reused key and to a missing key and tells them apart by errors[0].code.
type Matcher struct {
	Status []int `json:"status"`
	// Equals: JSON pointer → the value there, as text (a string as it is,
	// a number as written, true, false).
	Equals map[string]string `json:"equals,omitempty"`
	// Matches: JSON pointer → a regular expression the value there must match.
	Matches map[string]string `json:"matches,omitempty"`
	// Present: JSON pointers that must name a value other than null, and
	// Absent: pointers that must name nothing, or null, in a JSON body. A
	// GraphQL API answers everything 200: a created answer has
	// /data/createPayment and no /errors, a refusal /errors/0.
	Present []string `json:"present,omitempty"`
	Absent  []string `json:"absent,omitempty"`
	// ID, for created and replayed only: a JSON pointer to the resource ID
	// in this answer's body ("": where the target finds it by default).
	ID string `json:"id,omitempty"`
}

// Answers are the contract's matchers for each outcome. An outcome with no
// matcher falls back on Statuses (created: any 2xx with an ID).
type Answers struct {
	Created  []Matcher `json:"created,omitempty"`
	Replayed []Matcher `json:"replayed,omitempty"`
	Conflict []Matcher `json:"conflict,omitempty"`
	InFlight []Matcher `json:"in_flight,omitempty"`
	Invalid  []Matcher `json:"invalid,omitempty"`

	// ServerError: answers that say the service failed, judged exactly as
	// a 5xx is (an unknown outcome, or none under server_errors:
	// no-effects). A GraphQL API answers a failed mutation 200 with
	// errors[0].extensions.code INTERNAL_SERVER_ERROR. A 5xx that no
	// other outcome takes is a server error without a matcher.
	ServerError []Matcher `json:"server_error,omitempty"`
	// Taken: the refusal of a unique value another action holds
	// (Contract.Unique); no shorthand, no default.
	Taken []Matcher `json:"taken,omitempty"`
}

// Answer is what a call got back, as far as reading it needs.
type Answer struct {
	Status int
	Body   []byte
	// ID is the resource ID found where the target says by default
	// (target.id), "" when there is none.
	ID string
}

// reading is how the contract reads one answer.
type reading struct {
	Kind OutcomeKind
	// ID is the resource ID of an ok answer.
	ID string
	// Outcome is the contract outcome whose matcher the answer met
	// ("created", "replayed", "conflict", "in_flight", "invalid",
	// "taken", "server_error", also for a 5xx no matcher takes), "" for
	// none.
	Outcome string
}

// MissingID says the answer met an ok matcher (created or replayed) but
// carried no resource ID where the contract looks for it: the ID pointer,
// more likely than the service, is wrong.
func (r reading) MissingID() bool {
	return r.Kind == Other && (r.Outcome == "created" || r.Outcome == "replayed")
}

// outcome is one of the contract's outcomes with its matchers.
type outcome struct {
	name     string
	kind     OutcomeKind
	matchers []Matcher
	// from names where matchers left out of Answers came from.
	from string
}

// AnyStatus of class c (2 for 2xx): the statuses of a class, as a list.
func AnyStatus(class int) []int {
	codes := make([]int, 100)
	for i := range codes {
		codes[i] = class*100 + i
	}
	return codes
}

// outcomes are the contract's matchers in effect: those of Answers, and
// for an outcome with none, the shorthand of Statuses.
func (c Contract) outcomes() []outcome {
	a := c.Answers
	outs := []outcome{
		{"created", OK, a.Created, "created (by default any 2xx)"},
		{"replayed", OK, a.Replayed, ""},
		{"conflict", Conflict, a.Conflict, "statuses.conflict"},
		{"in_flight", InFlight, a.InFlight, "statuses.in_flight"},
		{"invalid", Invalid, a.Invalid, "statuses.invalid"},
		{"server_error", c.serverErrorKind(), a.ServerError, ""},
		{"taken", Taken, a.Taken, ""},
	}
	for i, o := range outs {
		if len(o.matchers) > 0 {
			outs[i].from = ""
		} else if codes := c.short(o.name); len(codes) > 0 {
			outs[i].matchers = []Matcher{{Status: codes}}
		}
	}
	return outs
}

// anyOK is every 2xx status, created's shorthand; read only.
var anyOK = AnyStatus(2)

// short is the shorthand of Statuses for the outcome named name, if any.
func (c Contract) short(name string) []int {
	switch name {
	case "created":
		return anyOK
	case "conflict":
		return c.Statuses.Conflict
	case "in_flight":
		return c.Statuses.InFlight
	case "invalid":
		return c.Statuses.Invalid
	}
	return nil
}

// Read classifies an answer by the contract's matchers. An answer that
// meets a created or replayed matcher but carries no ID, or that meets no
// matcher and is not a 5xx, is outside the contract (Other). A 5xx no
// matcher takes is a server error, as an answer answers.server_error takes
// is (Outcome.ServerError).
func (c Contract) Read(a Answer) reading {
	for _, o := range c.outcomes() {
		for _, m := range o.matchers {
			if !m.holds(a) {
				continue
			}
			r := reading{Kind: o.kind, Outcome: o.name}
			if o.kind == OK {
				r.ID = a.ID
				if m.ID != "" {
					r.ID, _ = Pointer(a.Body, m.ID)
				}
				if r.ID == "" {
					r.Kind = Other
				}
			}
			return r
		}
	}
	if a.Status >= 500 {
		return reading{Kind: c.serverErrorKind(), Outcome: "server_error"}
	}
	return reading{Kind: Other}
}

// serverErrorKind is how a server error is judged: its effect unknown, or
// none where the contract promises a server error leaves none.
func (c Contract) serverErrorKind() OutcomeKind {
	if c.ServerErrorsLeaveNoEffects {
		return Failed
	}
	return Unknown
}

// holds reports whether an answer meets the matcher. A condition on a
// pointer that names nothing in the body (or a body that is not JSON) does
// not hold.
func (m Matcher) holds(a Answer) bool {
	if !slices.Contains(m.Status, a.Status) {
		return false
	}
	for ptr, want := range m.Equals {
		if got, ok := Pointer(a.Body, ptr); !ok || got != want {
			return false
		}
	}
	for ptr, expr := range m.Matches {
		re, err := regexp.Compile(expr) // checked by CheckAnswers
		got, ok := Pointer(a.Body, ptr)
		if err != nil || !ok || !re.MatchString(got) {
			return false
		}
	}
	for _, ptr := range m.Present {
		if got, ok := Pointer(a.Body, ptr); !ok || got == "null" {
			return false
		}
	}
	if len(m.Absent) > 0 && !json.Valid(a.Body) {
		return false // not JSON: an answer of some other layer, not the API's
	}
	for _, ptr := range m.Absent {
		if got, ok := Pointer(a.Body, ptr); ok && got != "null" {
			return false
		}
	}
	return true
}

// CheckAnswers refuses matchers that could not be told apart or could
// never match: an empty status list, a status that is no HTTP status, a
// bad pointer or regular expression, an ID pointer on a refusal, a 2xx
// refusal without a body condition, and two matchers of different outcomes
// that one answer could meet (each answer must mean one thing). Errors
// name the matcher as the contract file does (answers.conflict[0]).
func (c Contract) CheckAnswers() error {
	outs := c.outcomes()
	for _, o := range outs {
		for i, m := range o.matchers {
			if err := m.check(o); err != nil {
				return fmt.Errorf("%s: %w", o.describe(i), err)
			}
		}
	}
	for i, a := range outs {
		for _, b := range outs[i+1:] {
			for ai, ma := range a.matchers {
				for bi, mb := range b.matchers {
					if a.kind == OK && b.kind == OK && ma.ID == mb.ID {
						continue // both read as ok, with the ID from one place
					}
					if code, ok := overlap(ma, mb); ok {
						return fmt.Errorf("%s %s and %s %s both match a %d answer%s; each answer must mean one thing: give them other statuses, or an equals: on one pointer with other values",
							a.describe(ai), ma, b.describe(bi), mb, code, conditionsHint(ma, mb))
					}
				}
			}
		}
	}
	return nil
}

// describe names the i-th matcher of an outcome as the contract has it:
// answers.conflict[0], or statuses.conflict for the shorthand.
func (o outcome) describe(i int) string {
	if o.from != "" {
		return o.from
	}
	return fmt.Sprintf("answers.%s[%d]", o.name, i)
}

func conditionsHint(a, b Matcher) string {
	if a.conditions()+b.conditions() == 0 {
		return ""
	}
	return " (conditions on different pointers, or two regular expressions, cannot prove that no answer meets both)"
}

// conditions counts the matcher's body conditions.
func (m Matcher) conditions() int {
	return len(m.Equals) + len(m.Matches) + len(m.Present) + len(m.Absent)
}

func (m Matcher) check(o outcome) error {
	if len(m.Status) == 0 {
		return fmt.Errorf("no status; give status: [...] (e.g. [400]), the statuses this outcome is answered with")
	}
	for _, code := range m.Status {
		if code < 100 || code > 599 {
			return fmt.Errorf("status %d is not an HTTP status (want 100–599)", code)
		}
	}
	for _, ptr := range slices.Sorted(maps.Keys(m.Equals)) {
		if !strings.HasPrefix(ptr, "/") {
			return fmt.Errorf("equals: %q is not a JSON pointer (want e.g. /errors/0/code)", ptr)
		}
	}
	for _, ptr := range slices.Sorted(maps.Keys(m.Matches)) {
		if !strings.HasPrefix(ptr, "/") {
			return fmt.Errorf("matches: %q is not a JSON pointer (want e.g. /errors/0/code)", ptr)
		}
		if _, err := regexp.Compile(m.Matches[ptr]); err != nil {
			return fmt.Errorf("matches: %s: %v", ptr, err)
		}
	}
	for _, list := range []struct {
		name string
		ptrs []string
	}{{"present", m.Present}, {"absent", m.Absent}} {
		for _, ptr := range list.ptrs {
			if !strings.HasPrefix(ptr, "/") {
				return fmt.Errorf("%s: %q is not a JSON pointer (want e.g. /errors)", list.name, ptr)
			}
		}
	}
	for _, ptr := range m.Absent {
		if slices.Contains(m.Present, ptr) || m.Equals[ptr] != "" || m.Matches[ptr] != "" {
			return fmt.Errorf("absent: %s is also required to hold a value: no answer meets this matcher", ptr)
		}
	}
	conditions := m.conditions()
	if o.kind != OK {
		if m.ID != "" {
			return fmt.Errorf("id: only created and replayed answers carry a resource ID")
		}
		for _, code := range m.Status {
			if code < 300 && conditions == 0 {
				return fmt.Errorf("%d is not an error status; a 2xx %s needs a body condition (equals:, matches:, present: or absent:) that tells it from a created answer", code, o.name)
			}
		}
	}
	if m.ID != "" && !strings.HasPrefix(m.ID, "/") {
		return fmt.Errorf("id: %q is not a JSON pointer (want e.g. /error/links/conflicting_resource_id)", m.ID)
	}
	return nil
}

// overlap is a status both matchers take, when no body condition proves
// that one answer cannot meet both: they test one pointer for two
// different values, or for a value the other's expression refuses.
func overlap(a, b Matcher) (int, bool) {
	i := slices.IndexFunc(a.Status, func(code int) bool { return slices.Contains(b.Status, code) })
	if i < 0 || exclusive(a, b) || exclusive(b, a) {
		return 0, false
	}
	return a.Status[i], true
}

func exclusive(a, b Matcher) bool {
	// A pointer a requires absent cannot hold, nor have anything below it
	// (absent /errors: no /errors/0/code), in an answer that b requires
	// to hold a value there.
	for _, gone := range a.Absent {
		under := func(ptr string) bool { return ptr == gone || strings.HasPrefix(ptr, gone+"/") }
		if slices.ContainsFunc(b.Present, under) ||
			slices.ContainsFunc(slices.Collect(maps.Keys(b.Equals)), func(p string) bool { return under(p) && b.Equals[p] != "null" }) ||
			slices.ContainsFunc(slices.Collect(maps.Keys(b.Matches)), under) {
			return true
		}
	}
	for ptr, v := range a.Equals {
		if w, ok := b.Equals[ptr]; ok && w != v {
			return true
		}
		if expr, ok := b.Matches[ptr]; ok {
			if re, err := regexp.Compile(expr); err == nil && !re.MatchString(v) {
				return true
			}
		}
	}
	return false
}

// String renders a matcher as the contract file would: {status: [400],
// equals: {/errors/0/code: IDEMPOTENCY_KEY_REUSED}}.
func (m Matcher) String() string {
	parts := []string{"status: [" + statusList(m.Status) + "]"}
	for _, c := range []struct {
		name string
		m    map[string]string
	}{{"equals", m.Equals}, {"matches", m.Matches}} {
		if len(c.m) == 0 {
			continue
		}
		var kv []string
		for _, ptr := range slices.Sorted(maps.Keys(c.m)) {
			kv = append(kv, ptr+": "+strconv.Quote(c.m[ptr]))
		}
		parts = append(parts, c.name+": {"+strings.Join(kv, ", ")+"}")
	}
	for _, c := range []struct {
		name string
		ptrs []string
	}{{"present", m.Present}, {"absent", m.Absent}} {
		if len(c.ptrs) > 0 {
			parts = append(parts, c.name+": ["+strings.Join(c.ptrs, ", ")+"]")
		}
	}
	if m.ID != "" {
		parts = append(parts, "id: "+m.ID)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// statusList writes a status list with whole classes as 2xx.
func statusList(codes []int) string {
	var out []string
	for i := 0; i < len(codes); i++ {
		if c := codes[i]; c%100 == 0 && i+99 < len(codes) && codes[i+99] == c+99 {
			out = append(out, fmt.Sprintf("%dxx", c/100))
			i += 99
			continue
		}
		out = append(out, strconv.Itoa(codes[i]))
	}
	return strings.Join(out, ", ")
}

// Expected describes the answers the contract takes for an outcome
// ("invalid": {status: [400]}), for messages that say what was wanted.
func (c Contract) Expected(name string) string {
	for _, o := range c.outcomes() {
		if o.name != name {
			continue
		}
		if len(o.matchers) == 0 {
			return "none"
		}
		s := make([]string, len(o.matchers))
		for i, m := range o.matchers {
			s[i] = m.String()
		}
		return strings.Join(s, " or ")
	}
	return "none"
}
