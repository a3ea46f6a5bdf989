package openapi

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemstress/idemstress/internal/draft"
)

// url is the server URL and the path, a tenant-like path parameter (or the
// only one) as {{tenant}}, the key's parameter as {{key}}, a parameter
// the document gives a value of (an example, a default, an enum) as that
// value; another required parameter leaves the URL a TODO.
func (d drafter) url(server, path string, params openapi3.Parameters, key *keySite) {
	if u, err := url.Parse(server); server == "" || err != nil || !u.IsAbs() {
		d.Note("target.url", "the document gives no absolute server URL (%q): pass --url", server)
		return
	}
	isKey := func(p *openapi3.Parameter) bool { return key != nil && key.In == p.In && key.Name == p.Name }
	keyOf := func(p *openapi3.Parameter) *keySite {
		if isKey(p) {
			return key
		}
		return nil
	}
	var inPath, inQuery []*openapi3.Parameter
	for _, p := range params {
		switch {
		case p.Value == nil:
		case p.Value.In == openapi3.ParameterInPath:
			inPath = append(inPath, p.Value)
		case p.Value.In == openapi3.ParameterInQuery:
			inQuery = append(inQuery, p.Value)
		}
	}
	full := strings.TrimRight(server, "/") + path
	for _, p := range inPath {
		value, todo := d.paramValue(p, keyOf(p), !strings.Contains(full, "{{tenant}}") && (tenantLike.MatchString(p.Name) || len(inPath) == 1 && !isKey(p)), url.PathEscape)
		if todo {
			d.Note("target.url", "path parameter %q: neither tenant nor key; give it a value (%s)", p.Name, full)
			return
		}
		full = strings.ReplaceAll(full, "{"+p.Name+"}", value)
	}
	var query []string
	for _, p := range inQuery {
		if !isKey(p) && !p.Required {
			continue
		}
		value, todo := d.paramValue(p, keyOf(p), !strings.Contains(full, "{{tenant}}") && tenantLike.MatchString(p.Name), url.QueryEscape)
		if todo {
			d.Note("target.url", "a required query parameter %q: neither tenant nor key; give it a value (%s?%s=)", p.Name, full, p.Name)
			return
		}
		query = append(query, url.QueryEscape(p.Name)+"="+value)
	}
	if len(query) > 0 {
		full += "?" + strings.Join(query, "&")
	}
	d.URL = full
}

// paramValue is what a path or query parameter is drafted as: {{key}},
// {{tenant}}, or the document's value of it; todo when there is none.
func (d drafter) paramValue(p *openapi3.Parameter, key *keySite, tenant bool, esc func(string) string) (string, bool) {
	switch {
	case key != nil:
		d.Note("target.url", "guessed: %s parameter %q is the key (%s)", p.In, p.Name, key.Why)
		return "{{key}}", false
	case tenant:
		d.Note("target.url", "guessed: %s parameter %q is the tenant", p.In, p.Name)
		d.tenantShape(fmt.Sprintf("%s parameter %s", p.In, p.Name), p.Schema)
		return "{{tenant}}", false
	}
	if v, why := paramExample(p); v != "" {
		d.Note("target.url", "guessed: %s parameter %q is %s, %s", p.In, p.Name, v, why)
		return esc(v), false
	}
	return "", true
}

// paramExample is the document's value of a parameter: its example, its
// schema's example or default, or the first member of its enum.
func paramExample(p *openapi3.Parameter) (string, string) {
	if p.Example != nil {
		return fmt.Sprint(p.Example), "the document's example"
	}
	for _, name := range sortedKeys(p.Examples) {
		if e := p.Examples[name]; e != nil && e.Value != nil && e.Value.Value != nil {
			return fmt.Sprint(e.Value.Value), "the document's example"
		}
	}
	if p.Schema == nil || p.Schema.Value == nil {
		return "", ""
	}
	s := p.Schema.Value
	switch {
	case s.Example != nil:
		return fmt.Sprint(s.Example), "the schema's example"
	case s.Default != nil:
		return fmt.Sprint(s.Default), "the schema's default"
	case len(s.Enum) == 1:
		return fmt.Sprint(s.Enum[0]), "the schema's enum of one member"
	case len(s.Enum) > 1:
		return fmt.Sprint(s.Enum[0]), "the first member of the schema's enum"
	}
	return "", ""
}

// headers drafts the key's header, a tenant-like header, and each other
// required header: the document's value of it, or a TODO.
func (d drafter) headers(params openapi3.Parameters, key *keySite) {
	for _, ref := range params {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInHeader {
			continue
		}
		switch {
		case key != nil && key.In == p.In && key.Name == p.Name:
			d.Headers = append(d.Headers, draft.Header{Name: p.Name, Value: "{{key}}"})
			d.Note("target.headers."+p.Name, "guessed: the key travels in header %s (%s)", p.Name, key.Why)
		case tenantLike.MatchString(p.Name) && !strings.Contains(d.URL, "{{tenant}}"):
			d.Headers = append(d.Headers, draft.Header{Name: p.Name, Value: "{{tenant}}"})
			d.Note("target.headers."+p.Name, "guessed: the tenant travels in header %s", p.Name)
			d.tenantShape("header "+p.Name, p.Schema)
		case p.Required:
			v, why := paramExample(p)
			d.Headers = append(d.Headers, draft.Header{Name: p.Name, Value: v})
			if v == "" {
				d.Note("target.headers."+p.Name, "a required header: give it a value")
			} else {
				d.Note("target.headers."+p.Name, "guessed: a required header, %s", why)
			}
		}
	}
}

// keyParam drafts what the key's site says: its shape, and key_required
// false when the document does not require it.
func (d drafter) keyParam(k keySite) {
	d.keyShape(k.Schema)
	if !k.Required {
		f := false
		d.KeyRequired = &f
		d.Note("key_required", "the document does not require the key: a call without one is a plain create")
	}
}
