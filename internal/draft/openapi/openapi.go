// Package openapi drafts the request of one operation of an OpenAPI 3
// document (read with kin-openapi) for idemstress init: the URL, the key
// wherever it travels and the tenant, their formats and patterns, the
// security scheme's header, a base payload and its validation rules, the
// ID pointer and the refusals' statuses or answers. It reads the document
// only: the effects from a create call's rows are internal/draft/effects',
// the calls that try the draft internal/draft/probe's, and the commented
// YAML internal/draft's.
package openapi

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemstress/idemstress/internal/boundedfile"
	"github.com/idemstress/idemstress/internal/draft"
)

// tenantLike names the parameters and members that hold the tenant.
var tenantLike = regexp.MustCompile(`(?i)(tenant|merchant|account|organi[sz]ation|org|workspace|team|company|creditor|customer|project)(?:[-_]?id)?$`)

// maxOpenAPI bounds an OpenAPI document: the largest public ones (a
// payment provider's, a code host's) are about 10 MiB of JSON, and a path
// such as /dev/zero must not be read until memory runs out.
const maxOpenAPI = 32 << 20

// drafter is the draft being filled from the document.
type drafter struct{ *draft.Draft }

// Draft drafts the request of one operation of an OpenAPI 3 document,
// named by its operationId or as "METHOD PATH"; server, when given, replaces
// the document's first server URL.
func Draft(ctx context.Context, file, operation, server string) (*draft.Draft, error) {
	data, err := boundedfile.Read(ctx, file, maxOpenAPI, "an OpenAPI document")
	if err != nil {
		return nil, fmt.Errorf("draft: OpenAPI document: %w", err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromDataWithPath(data, &url.URL{Path: filepath.ToSlash(file)})
	if err != nil {
		return nil, fmt.Errorf("draft: OpenAPI document %s: %w", file, err)
	}
	// A pattern Go's RE2 cannot compile (a lookahead) is still a valid
	// document: the draft says so at the field that would hold it.
	if err := doc.Validate(ctx, openapi3.DisableExamplesValidation(), openapi3.DisableSchemaPatternValidation()); err != nil {
		return nil, fmt.Errorf("draft: OpenAPI document %s is not valid: %w", file, err)
	}
	path, method, item, op := find(doc, operation)
	if op == nil {
		return nil, fmt.Errorf("draft: OpenAPI document %s has no operation %q (operations: %s)", file, operation, strings.Join(operations(doc), ", "))
	}
	d := drafter{&draft.Draft{Source: fmt.Sprintf("%s, operation %s %s", file, method, path), Method: method, Rules: map[string]any{}}}
	if server == "" && len(doc.Servers) > 0 {
		server = doc.Servers[0].URL
	}
	params := slices.Concat(item.Parameters, op.Parameters)
	var key *keySite
	if sites := keySites(params, bodySchema(op)); len(sites) > 0 {
		key = &sites[0]
	}
	d.url(server, path, params, key)
	d.headers(params, key)
	d.body(op, key)
	if key != nil {
		d.keyParam(*key)
	}
	d.security(doc, op)
	d.idPointer(op)
	d.refusals(op)
	return d.Draft, nil
}

// find looks an operation up by operationId or "METHOD PATH".
func find(doc *openapi3.T, operation string) (string, string, *openapi3.PathItem, *openapi3.Operation) {
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == operation || strings.EqualFold(method+" "+path, strings.Join(strings.Fields(operation), " ")) {
				return path, method, item, op
			}
		}
	}
	return "", "", nil, nil
}

func operations(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out = append(out, cmp.Or(op.OperationID, method+" "+path))
		}
	}
	sort.Strings(out)
	return out
}

// body drafts the payload from the request body's example (or its schema's
// examples, defaults and bounds), the key and the tenant when they are
// members of it, and its payload_rules from the schema.
func (d drafter) body(op *openapi3.Operation, key *keySite) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		d.Payload = map[string]any{}
		d.Note("payload", "the operation has no request body")
		return
	}
	mediaType, media := jsonMedia(op)
	if media == nil {
		d.Note("payload", "the request body is not JSON: write the base payload")
		return
	}
	if mediaType != "application/json" {
		// AWS's JSON protocol: application/x-amz-json-1.1.
		d.Headers = append(d.Headers, draft.Header{Name: "Content-Type", Value: mediaType})
		d.Note("target.headers.Content-Type", "the document's media type of the request body")
	}
	var schema *openapi3.Schema
	if media.Schema != nil {
		schema = media.Schema.Value
	}
	example := media.Example
	if example == nil {
		for _, name := range sortedKeys(media.Examples) {
			if e := media.Examples[name]; e != nil && e.Value != nil && e.Value.Value != nil {
				example = e.Value.Value
				break
			}
		}
	}
	if obj, ok := draft.Normalise(example).(map[string]any); ok {
		d.Payload = obj
		d.Note("payload", "the document's example of the request body")
	} else if obj, ok := draft.Normalise(sample(schema, 0)).(map[string]any); ok {
		d.Payload = obj
		d.Note("payload", "guessed: built from the schema's examples, defaults and bounds")
	} else {
		d.Note("payload", "neither an example nor a schema of an object: write the base payload")
		return
	}
	if schema == nil {
		return
	}
	// The key and the tenant may be body members (Square's idempotency_key,
	// AWS's ClientToken).
	if key != nil && key.In == "body" && setPointer(d.Payload, key.Name, "{{key}}") {
		d.Note("payload", "guessed: member %s is the key (%s)", key.Name, key.Why)
	}
	for _, name := range sortedKeys(schema.Properties) {
		prop := schema.Properties[name]
		if !strings.Contains(d.URL, "{{tenant}}") && !d.TenantHeader() && tenantLike.MatchString(name) && isString(prop) && d.Payload[name] != "{{key}}" {
			d.Payload[name] = "{{tenant}}"
			d.Note("payload", "guessed: member %s is the tenant", name)
			d.tenantShape("member "+name, prop)
		}
	}
	d.rules("", schema, d.Payload)
}

// jsonMedia is the request body's JSON media type (AWS's
// application/x-amz-json-1.1 among them).
func jsonMedia(op *openapi3.Operation) (string, *openapi3.MediaType) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return "", nil
	}
	return jsonContent(op.RequestBody.Value.Content)
}

// jsonContent is the JSON media type of a body: application/json, else the
// first whose name says json.
func jsonContent(content openapi3.Content) (string, *openapi3.MediaType) {
	if m := content.Get("application/json"); m != nil {
		return "application/json", m
	}
	for _, name := range sortedKeys(content) {
		if strings.Contains(strings.ToLower(name), "json") {
			return name, content[name]
		}
	}
	return "", nil
}

// bodySchema is the schema of the request body, or nil.
func bodySchema(op *openapi3.Operation) *openapi3.Schema {
	if _, m := jsonMedia(op); m != nil && m.Schema != nil {
		return m.Schema.Value
	}
	return nil
}

func isString(s *openapi3.SchemaRef) bool {
	return s != nil && s.Value != nil && s.Value.Type.Is("string")
}

// sample builds a value of a schema: its example, default, first enum
// member, a bound, or a placeholder of its type.
func sample(s *openapi3.Schema, depth int) any {
	if s == nil || depth > 8 {
		return nil
	}
	switch {
	case s.Example != nil:
		return s.Example
	case len(s.Examples) > 0:
		return s.Examples[0]
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	}
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		out := map[string]any{}
		for name, p := range s.Properties {
			if p.Value != nil && (slices.Contains(s.Required, name) || p.Value.Example != nil || p.Value.Default != nil) {
				out[name] = sample(p.Value, depth+1)
			}
		}
		return out
	case s.Type.Is("array"):
		if s.Items != nil && s.MinItems > 0 {
			return []any{sample(s.Items.Value, depth+1)}
		}
		return []any{}
	case s.Type.Is("integer"), s.Type.Is("number"):
		switch {
		case s.Min != nil:
			return *s.Min
		case s.Max != nil:
			return *s.Max
		}
		return 1
	case s.Type.Is("boolean"):
		return false
	case s.Type.Is("string"):
		if s.Format != "" || s.Pattern != "" {
			return nil // no value honest enough: the payload needs an example
		}
		return "sample"
	}
	return nil
}

// rules walks the schema beside the payload and writes a rule for each
// field the schema constrains.
func (d drafter) rules(ptr string, s *openapi3.Schema, v any) {
	if s == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p := s.Properties[k]; p != nil {
				d.rules(ptr+"/"+draft.Escape(k), p.Value, x[k])
			}
		}
		return
	case []any:
		if s.Items != nil {
			for i, e := range x {
				d.rules(ptr+"/"+strconv.Itoa(i), s.Items.Value, e)
			}
		}
		return
	case string:
		if strings.Contains(x, "{{") {
			return // identity: never varied
		}
	}
	path := "payload_rules." + ptr
	switch {
	case len(s.Enum) == 1:
		d.Rules[ptr] = "fixed"
		d.Note(path, "an enum of one member")
	case len(s.Enum) > 1:
		d.Rules[ptr] = map[string]any{"enum": s.Enum}
		d.Note(path, "the schema's enum")
	case s.Pattern != "" || s.Format != "" && s.Type.Is("string"):
		if len(s.Examples) > 1 {
			d.Rules[ptr] = map[string]any{"enum": s.Examples}
			d.Note(path, "the schema's examples of a field with a pattern or format")
			return
		}
		d.Rules[ptr] = "fixed"
		d.Note(path, "a %s the document gives no other members of", cmp.Or(patternOrFormat(s), "pattern"))
	case s.Type.Is("integer") && (s.Min != nil || s.Max != nil):
		d.Rules[ptr] = map[string]any{"int": bounds(d, path, s, v)}
	case s.Type.Is("number") && (s.Min != nil || s.Max != nil):
		d.Rules[ptr] = map[string]any{"number": bounds(d, path, s, v)}
	case s.Type.Is("string") && s.MaxLength != nil:
		d.Rules[ptr] = map[string]any{"max_len": *s.MaxLength}
		d.Note(path, "the schema's maxLength")
	}
}

func patternOrFormat(s *openapi3.Schema) string {
	if s.Pattern != "" {
		return "pattern"
	}
	return "format " + s.Format
}

// bounds is a range rule from minimum and maximum; a missing bound is
// guessed a million from the base value.
func bounds(d drafter, path string, s *openapi3.Schema, v any) map[string]any {
	base, _ := v.(int64)
	if f, ok := v.(float64); ok {
		base = int64(f)
	}
	lo, hi := float64(base)-1e6, float64(base)+1e6
	note := "the schema's minimum and maximum"
	if s.Min != nil {
		lo = *s.Min
	} else {
		note = "guessed: the schema has a maximum only; the minimum is a guess"
	}
	if s.Max != nil {
		hi = *s.Max
	} else {
		note = "guessed: the schema has a minimum only; the maximum is a guess"
	}
	d.Note(path, "%s", note)
	return map[string]any{"min": draft.Normalise(lo), "max": draft.Normalise(hi)}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
