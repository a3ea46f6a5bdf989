package draft

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// keyLike and tenantLike name the parameters and members that hold the
// idempotency key and the tenant; keyLike's first group is the stronger sign.
var (
	keyLike    = regexp.MustCompile(`(?i)^(?:x-)?(idempotency[-_]?key|idempotency|idempotencykey|idem[-_]?key)$|^(?:x-)?(request[-_]?id|request[-_]?key|dedup(?:lication)?[-_]?key)$`)
	tenantLike = regexp.MustCompile(`(?i)(tenant|merchant|account|organi[sz]ation|org|workspace|team|company|creditor|customer|project)(?:[-_]?id)?$`)
)

// FromOpenAPI drafts the request of one operation of an OpenAPI 3 document,
// named by its operationId or as "METHOD PATH"; server, when given, replaces
// the document's first server URL.
func FromOpenAPI(ctx context.Context, file, operation, server string) (*Draft, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(file)
	if err != nil {
		return nil, fmt.Errorf("draft: OpenAPI document %s: %w", file, err)
	}
	if err := doc.Validate(ctx, openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("draft: OpenAPI document %s is not valid: %w", file, err)
	}
	path, method, item, op := find(doc, operation)
	if op == nil {
		return nil, fmt.Errorf("draft: OpenAPI document %s has no operation %q (operations: %s)", file, operation, strings.Join(operations(doc), ", "))
	}
	d := &Draft{Source: fmt.Sprintf("%s, operation %s %s", file, method, path), Method: method, Rules: map[string]any{}}
	if server == "" && len(doc.Servers) > 0 {
		server = doc.Servers[0].URL
	}
	params := slices.Concat(item.Parameters, op.Parameters)
	d.url(server, path, params)
	d.headers(params)
	d.body(op)
	d.idPointer(op)
	d.refusals(op)
	return d, nil
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
			out = append(out, cmpOr(op.OperationID, method+" "+path))
		}
	}
	sort.Strings(out)
	return out
}

// url is the server URL and the path, a tenant-like path parameter (or the
// only one) as {{tenant}}; another path parameter leaves the URL a TODO.
func (d *Draft) url(server, path string, params openapi3.Parameters) {
	if u, err := url.Parse(server); server == "" || err != nil || !u.IsAbs() {
		d.note("target.url", "the document gives no absolute server URL (%q): pass --url", server)
		return
	}
	var inPath []*openapi3.Parameter
	for _, p := range params {
		if p.Value != nil && p.Value.In == openapi3.ParameterInPath {
			inPath = append(inPath, p.Value)
		}
	}
	full := strings.TrimRight(server, "/") + path
	for _, p := range inPath {
		switch {
		case !strings.Contains(full, "{{tenant}}") && (tenantLike.MatchString(p.Name) || len(inPath) == 1 && !keyLike.MatchString(p.Name)):
			full = strings.ReplaceAll(full, "{"+p.Name+"}", "{{tenant}}")
			d.note("target.url", "guessed: path parameter %q is the tenant", p.Name)
		case keyLike.MatchString(p.Name):
			full = strings.ReplaceAll(full, "{"+p.Name+"}", "{{key}}")
			d.note("target.url", "guessed: path parameter %q is the key", p.Name)
		default:
			d.note("target.url", "path parameter %q: neither tenant nor key; give it a value (%s)", p.Name, full)
			return
		}
	}
	d.URL = full
}

// headers finds the key and the tenant among the header parameters;
// other required headers are TODOs.
func (d *Draft) headers(params openapi3.Parameters) {
	for _, ref := range params {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInHeader {
			continue
		}
		switch {
		case keyLike.MatchString(p.Name) && (keyLike.FindStringSubmatch(p.Name)[1] != "" || p.Required):
			d.Headers = append(d.Headers, Header{p.Name, "{{key}}"})
			d.note("target.headers."+p.Name, "guessed: the key travels in header %s", p.Name)
			d.keyParam(p.Schema, p.Required)
		case tenantLike.MatchString(p.Name) && !strings.Contains(d.URL, "{{tenant}}"):
			d.Headers = append(d.Headers, Header{p.Name, "{{tenant}}"})
			d.note("target.headers."+p.Name, "guessed: the tenant travels in header %s", p.Name)
		case p.Required:
			d.Headers = append(d.Headers, Header{p.Name, ""})
			d.note("target.headers."+p.Name, "a required header: give it a value")
		}
	}
}

// keyParam reads the key's length limit and whether it is required.
func (d *Draft) keyParam(s *openapi3.SchemaRef, required bool) {
	if s != nil && s.Value != nil && s.Value.MaxLength != nil {
		d.KeyMaxLen = int(*s.Value.MaxLength)
		d.note("key_max_len", "the document's maxLength of the key")
	}
	if !required {
		f := false
		d.KeyRequired = &f
		d.note("key_required", "the document does not require the key: a call without one is a plain create")
	}
}

// body drafts the payload from the request body's example (or its schema's
// examples, defaults and bounds), and its payload_rules from the schema.
func (d *Draft) body(op *openapi3.Operation) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		d.Payload = map[string]any{}
		d.note("payload", "the operation has no request body")
		return
	}
	media := op.RequestBody.Value.Content.Get("application/json")
	if media == nil {
		d.note("payload", "the request body is not application/json: write the base payload")
		return
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
	if obj, ok := normalise(example).(map[string]any); ok {
		d.Payload = obj
		d.note("payload", "the document's example of the request body")
	} else if obj, ok := normalise(sample(schema, 0)).(map[string]any); ok {
		d.Payload = obj
		d.note("payload", "guessed: built from the schema's examples, defaults and bounds")
	} else {
		d.note("payload", "neither an example nor a schema of an object: write the base payload")
		return
	}
	if schema == nil {
		return
	}
	// The key and the tenant may be body members (Square's idempotency_key).
	keyInHeader := d.KeyTemplate()
	for _, name := range sortedKeys(schema.Properties) {
		prop := schema.Properties[name]
		required := slices.Contains(schema.Required, name)
		switch {
		case !keyInHeader && keyLike.MatchString(name):
			d.Payload[name] = "{{key}}"
			d.note("payload", "guessed: member %s is the key", name)
			keyInHeader = true
			d.keyParam(prop, required)
		case !strings.Contains(d.URL, "{{tenant}}") && !d.tenantHeader() && tenantLike.MatchString(name) && isString(prop):
			d.Payload[name] = "{{tenant}}"
			d.note("payload", "guessed: member %s is the tenant", name)
		}
	}
	d.rules("", schema, d.Payload)
}

func (d *Draft) tenantHeader() bool {
	for _, h := range d.Headers {
		if strings.Contains(h.Value, "{{tenant}}") {
			return true
		}
	}
	return false
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
func (d *Draft) rules(ptr string, s *openapi3.Schema, v any) {
	if s == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p := s.Properties[k]; p != nil {
				d.rules(ptr+"/"+escape(k), p.Value, x[k])
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
		d.note(path, "an enum of one member")
	case len(s.Enum) > 1:
		d.Rules[ptr] = map[string]any{"enum": flow(s.Enum).v}
		d.note(path, "the schema's enum")
	case s.Pattern != "" || s.Format != "" && s.Type.Is("string"):
		if len(s.Examples) > 1 {
			d.Rules[ptr] = map[string]any{"enum": s.Examples}
			d.note(path, "the schema's examples of a field with a pattern or format")
			return
		}
		d.Rules[ptr] = "fixed"
		d.note(path, "a %s the document gives no other members of", cmpOr(patternOrFormat(s), "pattern"))
	case s.Type.Is("integer") && (s.Min != nil || s.Max != nil):
		d.Rules[ptr] = map[string]any{"int": bounds(d, path, s, v)}
	case s.Type.Is("number") && (s.Min != nil || s.Max != nil):
		d.Rules[ptr] = map[string]any{"number": bounds(d, path, s, v)}
	case s.Type.Is("string") && s.MaxLength != nil:
		d.Rules[ptr] = map[string]any{"max_len": *s.MaxLength}
		d.note(path, "the schema's maxLength")
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
func bounds(d *Draft, path string, s *openapi3.Schema, v any) map[string]any {
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
	d.note(path, "%s", note)
	return map[string]any{"min": normalise(lo), "max": normalise(hi)}
}

// escape is a JSON pointer's escaping of a member name.
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
