package openapi

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemstress/idemstress/internal/draft"
)

// security drafts the header the operation's security scheme sends: an
// http bearer or basic scheme (and OAuth 2, OpenID Connect) as
// Authorization, an apiKey in a header under its name. Its value is a
// TODO: a token is a secret the document cannot give, and a placeholder
// sent as it is would only be refused; init --header gives it.
func (d drafter) security(doc *openapi3.T, op *openapi3.Operation) {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 || doc.Components == nil {
		return
	}
	// The first alternative; an empty one says the call may go without.
	for _, name := range sortedKeys(reqs[0]) {
		ref := doc.Components.SecuritySchemes[name]
		if ref == nil || ref.Value == nil {
			continue
		}
		s := ref.Value
		header, give := "", ""
		switch {
		case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"), s.Type == "oauth2", s.Type == "openIdConnect":
			header, give = "Authorization", `"Bearer <token>"`
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			header, give = "Authorization", `"Basic <base64 of user:password>"`
		case s.Type == "apiKey" && s.In == "header":
			header, give = s.Name, "the key"
		case s.Type == "apiKey":
			d.Note("target.url", "the security scheme %q sends an API key in the %s (%s): add it", name, s.In, s.Name)
			continue
		default:
			continue
		}
		if slices.ContainsFunc(d.Headers, func(h draft.Header) bool { return strings.EqualFold(h.Name, header) }) {
			continue
		}
		d.Headers = append(d.Headers, draft.Header{Name: header, Value: ""})
		if s.Extensions["x-amazon-apigateway-authtype"] == "awsSigv4" {
			d.Note("target.headers."+header, "the document's security scheme %q is AWS Signature Version 4, which signs each request: idemstress sends fixed headers, so call a stage without it or through a signing proxy", name)
			continue
		}
		d.Note("target.headers."+header, "the document's security scheme %q (%s%s): give %s here, or pass init --header %q", name, s.Type, suffix(s.Scheme), give, header+": …")
	}
}

func suffix(scheme string) string {
	if scheme == "" {
		return ""
	}
	return " " + scheme
}
