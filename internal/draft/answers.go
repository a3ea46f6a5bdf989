package draft

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// idPointer finds the resource ID in the first documented 2xx answer: a
// member named id, at the top or one object down (/payment/id), or the
// Location header.
func (d *Draft) idPointer(op *openapi3.Operation) {
	for _, code := range documented(op) {
		if code/100 != 2 {
			continue
		}
		r := op.Responses.Value(strconv.Itoa(code)).Value
		if mt := r.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			if ptr := findID("", mt.Schema.Value, 0); ptr != "" {
				d.ID = ptr
				d.note("target.id", "guessed: the %d answer's schema has %s", code, ptr)
				return
			}
		}
		if _, ok := r.Headers["Location"]; ok {
			d.ID = "location"
			d.note("target.id", "guessed: the %d answer's Location header", code)
			return
		}
	}
	d.note("target.id", "no 2xx answer of the document has a member named id")
}

func findID(ptr string, s *openapi3.Schema, depth int) string {
	if s == nil || depth > 2 {
		return ""
	}
	if _, ok := s.Properties["id"]; ok {
		return ptr + "/id"
	}
	for _, name := range sortedKeys(s.Properties) {
		if p := s.Properties[name]; p.Value != nil && p.Value.Type.Is("object") {
			if found := findID(ptr+"/"+escape(name), p.Value, depth+1); found != "" {
				return found
			}
		}
	}
	return ""
}

// documented lists the operation's answer statuses in order.
func documented(op *openapi3.Operation) []int {
	var out []int
	if op.Responses == nil {
		return nil
	}
	for code := range op.Responses.Map() {
		if n, err := strconv.Atoi(code); err == nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Outcome words in error codes and descriptions.
var refusalWords = []struct {
	outcome string
	code    *regexp.Regexp
}{
	{"conflict", regexp.MustCompile(`(?i)(REUSE|MISMATCH|CONFLICT|DIFFERENT|CHANGED)`)},
	{"in_flight", regexp.MustCompile(`(?i)(IN_USE|IN_PROGRESS|IN_FLIGHT|CONCURRENT|PROCESSING|LOCKED)`)},
	{"invalid", regexp.MustCompile(`(?i)^(MISSING|REQUIRED)`)},
}

// ietf is the IETF draft's status of each refusal.
var ietf = map[string]int{"conflict": 422, "in_flight": 409, "invalid": 400}

// refusals reads the statuses of conflict, in_flight and invalid from the
// document: an error code an answer's description names (Square's
// IDEMPOTENCY_KEY_REUSED in a 400) makes a matcher on that code; else a
// documented status of the IETF draft is that refusal.
func (d *Draft) refusals(op *openapi3.Operation) {
	codes := documented(op)
	for _, w := range refusalWords {
		found := false
		for _, status := range codes {
			if status/100 != 4 {
				continue
			}
			r := op.Responses.Value(strconv.Itoa(status)).Value
			ptr, members := codeEnum(r)
			for _, m := range members {
				if w.code.MatchString(m) && strings.Contains(desc(r), m) {
					if d.Answers == nil {
						d.Answers = map[string][]matcher{}
					}
					d.Answers[w.outcome] = append(d.Answers[w.outcome], matcher{Status: status, Equals: map[string]string{ptr: m}})
					d.note("answers."+w.outcome, "guessed: the document's %d answer names %s at %s", status, m, ptr)
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if found {
			continue
		}
		if slices.Contains(codes, ietf[w.outcome]) && !d.statusTaken(ietf[w.outcome]) {
			if d.Statuses == nil {
				d.Statuses = map[string][]int{}
			}
			d.Statuses[w.outcome] = []int{ietf[w.outcome]}
			d.note("statuses."+w.outcome, "guessed: documented, and the IETF draft's status for it")
		}
	}
}

// statusTaken says whether a matcher already gives the status to a refusal.
func (d *Draft) statusTaken(status int) bool {
	for _, ms := range d.Answers {
		for _, m := range ms {
			if m.Status == status {
				return true
			}
		}
	}
	return false
}

func desc(r *openapi3.Response) string {
	if r.Description == nil {
		return ""
	}
	return *r.Description
}

// codeEnum finds an error code in an answer's schema: a string member with
// an enum named code (at any depth, arrays entered at their first item).
func codeEnum(r *openapi3.Response) (string, []string) {
	mt := r.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return "", nil
	}
	var walk func(ptr string, s *openapi3.Schema, depth int) (string, []string)
	walk = func(ptr string, s *openapi3.Schema, depth int) (string, []string) {
		if s == nil || depth > 4 {
			return "", nil
		}
		if s.Type.Is("array") && s.Items != nil {
			return walk(ptr+"/0", s.Items.Value, depth+1)
		}
		if c := s.Properties["code"]; c != nil && c.Value != nil && len(c.Value.Enum) > 0 {
			var members []string
			for _, e := range c.Value.Enum {
				if str, ok := e.(string); ok {
					members = append(members, str)
				}
			}
			return ptr + "/code", members
		}
		for _, name := range sortedKeys(s.Properties) {
			if p, m := walk(ptr+"/"+escape(name), s.Properties[name].Value, depth+1); p != "" {
				return p, m
			}
		}
		return "", nil
	}
	return walk("", mt.Schema.Value, 0)
}
