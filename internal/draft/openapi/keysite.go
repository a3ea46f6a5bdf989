package openapi

import (
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemstress/idemstress/internal/draft"
)

// keySite is a place where the operation may take the idempotency key: a
// parameter (header, query, path) or a member of the request body.
type keySite struct {
	In       string // openapi3.ParameterInHeader, …InQuery, …InPath, or "body"
	Name     string // the parameter's name, or the body member's JSON pointer
	Schema   *openapi3.SchemaRef
	Required bool
	Score    int
	Why      string // what made it look like the key, for the note
}

// Signs of the key in a name and in a description. A strong name is the
// key wherever it is (Idempotency-Key, AWS's ClientToken); a weak one
// (requestId, X-Request-Id) is the key only when required or described as
// one, since X-Request-Id is most often a tracing header.
var (
	strongKeyName = regexp.MustCompile(`(?i)^(?:x-)?(?:idempotency[-_]?(?:key|token|id)?|idempotent[-_]?token|idem[-_]?key|client[-_]?(?:request[-_]?)?token)$`)
	weakKeyName   = regexp.MustCompile(`(?i)^(?:x-)?(?:(?:client[-_]?)?request[-_]?(?:id|key|token)|dedup(?:lication)?[-_]?(?:key|id)|unique[-_]?request[-_]?id)$`)
	hintKeyName   = regexp.MustCompile(`(?i)(?:token|key|id)$`)
	keyWords      = regexp.MustCompile(`(?i)idempoten`)
	retryWords    = regexp.MustCompile(`(?i)\bretr(?:y|ies|ied|ying)\b|duplicate|dedup|only once|at most once|ignore the request|same request`)
	idWords       = regexp.MustCompile(`(?i)request id|client token`)
	tracingWords  = regexp.MustCompile(`(?i)tracing|correlat|logging`)
)

// keyThreshold is the score a site needs to be the key: a strong name, a
// weak one outside the headers, a weak header that is required or
// described with retries, or a name ending in token, key or id that is
// described as the idempotency one.
const keyThreshold = 5

// keyScore rates how much a parameter or member looks like the key. A
// weak name is taken as the key by itself outside the headers: a
// requestId in the query or the body is no tracing header.
func keyScore(in, name, description string, required bool) (int, string) {
	score, why := 0, []string{}
	switch {
	case strongKeyName.MatchString(name):
		score, why = 10, append(why, "named like one")
	case weakKeyName.MatchString(name) && in != openapi3.ParameterInHeader:
		score, why = 5, append(why, "named like one")
	case weakKeyName.MatchString(name):
		score, why = 3, append(why, "named like one")
	case hintKeyName.MatchString(name):
		score = 1
	}
	if score == 0 {
		return 0, ""
	}
	switch {
	case keyWords.MatchString(description):
		score, why = score+4, append(why, "described as the idempotency key")
	case retryWords.MatchString(description):
		score, why = score+2, append(why, "described as what makes a retry safe")
	case idWords.MatchString(description):
		score++
	}
	if tracingWords.MatchString(description) {
		score -= 3
	}
	if required {
		score, why = score+2, append(why, "required")
	}
	return score, strings.Join(why, ", ")
}

// keySites lists the operation's parameters and body members (at any depth
// up to four objects down) that may be the key, best first; ties go to a
// header, then the query, the body and the path, then by name.
func keySites(params openapi3.Parameters, body *openapi3.Schema) []keySite {
	var out []keySite
	for _, ref := range params {
		p := ref.Value
		if p == nil || p.In == openapi3.ParameterInCookie {
			continue
		}
		desc := p.Description
		if p.Schema != nil && p.Schema.Value != nil {
			desc += " " + p.Schema.Value.Description
		}
		if s, why := keyScore(p.In, p.Name, desc, p.Required); s >= keyThreshold {
			out = append(out, keySite{In: p.In, Name: p.Name, Schema: p.Schema, Required: p.Required, Score: s, Why: why})
		}
	}
	var walk func(ptr string, s *openapi3.Schema, required bool, depth int)
	walk = func(ptr string, s *openapi3.Schema, required bool, depth int) {
		if s == nil || depth > 4 {
			return
		}
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			if p == nil || p.Value == nil {
				continue
			}
			req := required && slices.Contains(s.Required, name)
			if p.Value.Type.Is("object") || len(p.Value.Properties) > 0 {
				walk(ptr+"/"+draft.Escape(name), p.Value, req, depth+1)
				continue
			}
			if !p.Value.Type.Is("string") && p.Value.Type != nil {
				continue
			}
			if sc, why := keyScore("body", name, p.Value.Description, req); sc >= keyThreshold {
				out = append(out, keySite{In: "body", Name: ptr + "/" + draft.Escape(name), Schema: p, Required: req, Score: sc - depth, Why: why})
			}
		}
	}
	walk("", body, true, 0)
	order := map[string]int{openapi3.ParameterInHeader: 0, openapi3.ParameterInQuery: 1, "body": 2, openapi3.ParameterInPath: 3}
	slices.SortStableFunc(out, func(a, b keySite) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		if order[a.In] != order[b.In] {
			return order[a.In] - order[b.In]
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// place says where the chosen key site is, for the note.
func (k keySite) place() string {
	switch k.In {
	case "body":
		return "body member " + k.Name
	case openapi3.ParameterInQuery:
		return "query parameter " + k.Name
	case openapi3.ParameterInPath:
		return "path parameter " + k.Name
	}
	return "header " + k.Name
}

// setPointer puts v at the JSON pointer ptr of obj, making the objects on
// the way; a non-object on the way is left as it is and reports false.
func setPointer(obj map[string]any, ptr string, v any) bool {
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		if i == len(parts)-1 {
			obj[p] = v
			return true
		}
		next, ok := obj[p].(map[string]any)
		if !ok {
			if obj[p] != nil {
				return false
			}
			next = map[string]any{}
			obj[p] = next
		}
		obj = next
	}
	return false
}
