package reference

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// reading is how the contract reads one answer.
type reading struct {
	Kind model.OutcomeKind
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
	return r.Kind == model.Other && (r.Outcome == "created" || r.Outcome == "replayed")
}

// outcome is one of the contract's outcomes with its matchers.
type outcome struct {
	name     string
	kind     model.OutcomeKind
	matchers []model.Matcher
	// from names where matchers left out of Answers came from.
	from string
}

// outcomes are the contract's matchers in effect: those of Answers, and
// for an outcome with none, the shorthand of Statuses.
func outcomes(c model.Contract) []outcome {
	a := c.Answers
	outs := []outcome{
		{"created", model.OK, a.Created, "created (by default any 2xx)"},
		{"replayed", model.OK, a.Replayed, ""},
		{"conflict", model.Conflict, a.Conflict, "statuses.conflict"},
		{"in_flight", model.InFlight, a.InFlight, "statuses.in_flight"},
		{"invalid", model.Invalid, a.Invalid, "statuses.invalid"},
		{"server_error", serverErrorKind(c), a.ServerError, ""},
		{"taken", model.Taken, a.Taken, ""},
	}
	for i, o := range outs {
		if len(o.matchers) > 0 {
			outs[i].from = ""
		} else if codes := short(c, o.name); len(codes) > 0 {
			outs[i].matchers = []model.Matcher{{Status: codes}}
		}
	}
	return outs
}

// anyOK is every 2xx status, created's shorthand; read only.
var anyOK = model.AnyStatus(2)

// short is the shorthand of Statuses for the outcome named name, if any.
func short(c model.Contract, name string) []int {
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
func Read(c model.Contract, a model.Answer) reading {
	for _, o := range outcomes(c) {
		for _, m := range o.matchers {
			if !matcherHolds(m, a) {
				continue
			}
			r := reading{Kind: o.kind, Outcome: o.name}
			if o.kind == model.OK {
				r.ID = a.ID
				if m.ID != "" {
					r.ID, _ = payloads.Pointer(a.Body, m.ID)
				}
				if r.ID == "" {
					r.Kind = model.Other
				}
			}
			return r
		}
	}
	if a.Status >= 500 {
		return reading{Kind: serverErrorKind(c), Outcome: "server_error"}
	}
	return reading{Kind: model.Other}
}

// serverErrorKind is how a server error is judged: its effect unknown, or
// none where the contract promises a server error leaves none.
func serverErrorKind(c model.Contract) model.OutcomeKind {
	if c.ServerErrorsLeaveNoEffects {
		return model.Failed
	}
	return model.Unknown
}

// holds reports whether an answer meets the matcher. A condition on a
// pointer that names nothing in the body (or a body that is not JSON) does
// not hold.
func matcherHolds(m model.Matcher, a model.Answer) bool {
	if !slices.Contains(m.Status, a.Status) {
		return false
	}
	for ptr, want := range m.Equals {
		if got, ok := payloads.Pointer(a.Body, ptr); !ok || got != want {
			return false
		}
	}
	for ptr, expr := range m.Matches {
		re, err := regexp.Compile(expr) // checked by CheckAnswers
		got, ok := payloads.Pointer(a.Body, ptr)
		if err != nil || !ok || !re.MatchString(got) {
			return false
		}
	}
	for _, ptr := range m.Present {
		if got, ok := payloads.Pointer(a.Body, ptr); !ok || got == "null" {
			return false
		}
	}
	if len(m.Absent) > 0 && !json.Valid(a.Body) {
		return false // not JSON: an answer of some other layer, not the API's
	}
	for _, ptr := range m.Absent {
		if got, ok := payloads.Pointer(a.Body, ptr); ok && got != "null" {
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
func CheckAnswers(c model.Contract) error {
	outs := outcomes(c)
	for _, o := range outs {
		for i, m := range o.matchers {
			if err := matcherCheck(m, o); err != nil {
				return fmt.Errorf("%s: %w", o.describe(i), err)
			}
		}
	}
	for i, a := range outs {
		for _, b := range outs[i+1:] {
			for ai, ma := range a.matchers {
				for bi, mb := range b.matchers {
					if a.kind == model.OK && b.kind == model.OK && ma.ID == mb.ID {
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

func conditionsHint(a, b model.Matcher) string {
	if matcherConditions(a)+matcherConditions(b) == 0 {
		return ""
	}
	return " (conditions on different pointers, or two regular expressions, cannot prove that no answer meets both)"
}

// conditions counts the matcher's body conditions.
func matcherConditions(m model.Matcher) int {
	return len(m.Equals) + len(m.Matches) + len(m.Present) + len(m.Absent)
}

func matcherCheck(m model.Matcher, o outcome) error {
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
	conditions := matcherConditions(m)
	if o.kind != model.OK {
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
func overlap(a, b model.Matcher) (int, bool) {
	i := slices.IndexFunc(a.Status, func(code int) bool { return slices.Contains(b.Status, code) })
	if i < 0 || exclusive(a, b) || exclusive(b, a) {
		return 0, false
	}
	return a.Status[i], true
}

func exclusive(a, b model.Matcher) bool {
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

// Expected describes the answers the contract takes for an outcome
// ("invalid": {status: [400]}), for messages that say what was wanted.
func Expected(c model.Contract, name string) string {
	for _, o := range outcomes(c) {
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
