package client

import (
	"net/url"
	"testing"

	"pgregory.net/rapid"
)

// TestRenderAsTheRegexpReplaces pins render to what the placeholder
// pattern's ReplaceAllStringFunc fills in, on templates made of the
// pattern's own characters: nested, unclosed and spaced braces, unknown
// names, and text between.
func TestRenderAsTheRegexpReplaces(t *testing.T) {
	want := func(tmpl string, req Request, escape func(string) string) string {
		return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
			return escape(map[string]string{"tenant": req.Tenant, "key": req.Key, "tag": req.Tag}[placeholder.FindStringSubmatch(m)[1]])
		})
	}
	parts := rapid.SampledFrom([]string{"{{", "}}", "{", "}", " ", "\t", "key", "tenant", "tag", "ke", "x_", "/", "?a=", "&", "é", "{{key}}", "{{ tag }}"})
	rapid.Check(t, func(t *rapid.T) {
		var tmpl string
		for _, p := range rapid.SliceOfN(parts, 0, 12).Draw(t, "parts") {
			tmpl += p
		}
		req := Request{Tenant: "T&1", Key: "k/1 +", Tag: "is-1.k"}
		for _, escape := range []func(string) string{asIs, url.PathEscape, url.QueryEscape} {
			if got, w := render(tmpl, req, escape), want(tmpl, req, escape); got != w {
				t.Fatalf("render(%q) = %q, the pattern fills in %q", tmpl, got, w)
			}
		}
	})
}
