package openapi

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemstress/idemstress/internal/draft"
)

// idPointer finds the resource ID in the first documented 2xx answer: a
// member named id (else one named like an ID: targetId), at the top or one
// object down (/payment/id), or the Location header.
func (d drafter) idPointer(op *openapi3.Operation) {
	for _, code := range documented(op) {
		if code/100 != 2 {
			continue
		}
		r := op.Responses.Value(strconv.Itoa(code)).Value
		if _, mt := jsonContent(r.Content); mt != nil && mt.Schema != nil {
			if ptr := findID("", mt.Schema.Value, 0); ptr != "" {
				d.ID = ptr
				d.Note("target.id", "guessed: the %d answer's schema has %s", code, ptr)
				return
			}
		}
		if _, ok := r.Headers["Location"]; ok {
			d.ID = "location"
			d.Note("target.id", "guessed: the %d answer's Location header", code)
			return
		}
	}
	d.Note("target.id", "no 2xx answer of the document has a member named id")
}

// findID is the pointer to a member named id, else (a second pass) to a
// string member named like an ID: Google's Operation names its resource's
// targetId, AWS a CertificateArn.
func findID(ptr string, s *openapi3.Schema, depth int) string {
	if found := findMember(ptr, s, depth, func(name string, _ *openapi3.SchemaRef) bool { return name == "id" }); found != "" {
		return found
	}
	return findMember(ptr, s, depth, func(name string, p *openapi3.SchemaRef) bool { return idLike.MatchString(name) && isString(p) })
}

func findMember(ptr string, s *openapi3.Schema, depth int, is func(string, *openapi3.SchemaRef) bool) string {
	if s == nil || depth > 2 {
		return ""
	}
	for _, name := range sortedKeys(s.Properties) {
		if is(name, s.Properties[name]) {
			return ptr + "/" + draft.Escape(name)
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		if p := s.Properties[name]; p.Value != nil && p.Value.Type.Is("object") {
			if found := findMember(ptr+"/"+draft.Escape(name), p.Value, depth+1, is); found != "" {
				return found
			}
		}
	}
	return ""
}

var idLike = regexp.MustCompile(`^[a-zA-Z]*(?:[a-z]Id|_id|ID|Arn)$`)

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
func (d drafter) refusals(op *openapi3.Operation) {
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
						d.Answers = map[string][]draft.Matcher{}
					}
					d.Answers[w.outcome] = append(d.Answers[w.outcome], draft.Matcher{Status: status, Equals: map[string]string{ptr: m}})
					d.Note("answers."+w.outcome, "guessed: the document's %d answer names %s at %s", status, m, ptr)
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
		if w.outcome == "in_flight" && slices.Contains(codes, 409) && otherThanInProgress(op, 409) {
			d.inFlight(op, codes, "; its 409 is described as another refusal")
			continue
		}
		if slices.Contains(codes, ietf[w.outcome]) && !d.statusTaken(ietf[w.outcome]) {
			if d.Statuses == nil {
				d.Statuses = map[string][]int{}
			}
			d.Statuses[w.outcome] = []int{ietf[w.outcome]}
			d.Note("statuses."+w.outcome, "guessed: documented, and the IETF draft's status for it")
		} else if w.outcome == "in_flight" {
			d.inFlight(op, codes, "")
		}
	}
}

// inProgress is how a 425 or 429 says it answers a call whose key is
// still being processed.
var inProgress = regexp.MustCompile(`(?i)in[- ]progress|in[- ]flight|in use|still (?:being )?process|already (?:being )?process|concurrent`)

// inFlight drafts in_flight when no 409 and no error code says it: a 425
// or 429 the document describes as a call still in progress, else [] (an
// API that documents no in-progress answer has none to be held to, and
// the IETF draft's 409 would read its 409 "already exists" as one); why
// adds to the note.
func (d drafter) inFlight(op *openapi3.Operation, codes []int, why string) {
	if d.Statuses == nil {
		d.Statuses = map[string][]int{}
	}
	for _, status := range []int{425, 429} {
		if slices.Contains(codes, status) && !d.statusTaken(status) && inProgress.MatchString(desc(op.Responses.Value(strconv.Itoa(status)).Value)) {
			d.Statuses["in_flight"] = []int{status}
			d.Note("statuses.in_flight", "guessed: the document's %d answer is described as a call still in progress", status)
			return
		}
	}
	d.Statuses["in_flight"] = []int{}
	d.NoInFlight = true
	d.Note("statuses.in_flight", "guessed: the document lists no in-progress answer%s", why)
}

// alreadyExists is how a 409 says it refuses a second resource of a
// unique name (Google's alreadyExists, Kubernetes' AlreadyExists).
var alreadyExists = regexp.MustCompile(`(?i)already ?exists|exists already|duplicate`)

// otherThanInProgress says whether the document describes an answer of
// the status as another refusal and not as a call in progress.
func otherThanInProgress(op *openapi3.Operation, status int) bool {
	d := desc(op.Responses.Value(strconv.Itoa(status)).Value)
	return alreadyExists.MatchString(d) && !inProgress.MatchString(d)
}

// statusTaken says whether a matcher already gives the status to a refusal.
func (d drafter) statusTaken(status int) bool {
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
	_, mt := jsonContent(r.Content)
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
		// AWS's JSON protocol names the error in __type.
		for _, name := range []string{"code", "__type", "reason", "type"} {
			if c := s.Properties[name]; c != nil && c.Value != nil && len(c.Value.Enum) > 0 {
				var members []string
				for _, e := range c.Value.Enum {
					if str, ok := e.(string); ok {
						members = append(members, str)
					}
				}
				return ptr + "/" + name, members
			}
		}
		for _, name := range sortedKeys(s.Properties) {
			if p, m := walk(ptr+"/"+draft.Escape(name), s.Properties[name].Value, depth+1); p != "" {
				return p, m
			}
		}
		return "", nil
	}
	return walk("", mt.Schema.Value, 0)
}
