package draft

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idemstress/idemstress/contract"
)

// Render writes the draft as a commented contract file.
func (d *Draft) Render() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	root.HeadComment = "Drafted by idemstress init from " + d.Source + ".\n" +
		"Each value marked \"guessed\" is a guess to check; run refuses a TODO, naming it.\n" +
		"docs/contract.md describes every field."
	d.renderTarget(root)
	d.renderPayload(root)
	d.renderStatuses(root)
	d.renderAnswers(root)
	if d.KeyScope != "" {
		d.put(root, "key_scope", "key_scope", d.KeyScope)
	}
	if d.KeyRequired != nil {
		d.put(root, "key_required", "key_required", *d.KeyRequired)
	}
	if d.KeyMaxLen > 0 {
		d.put(root, "key_max_len", "key_max_len", d.KeyMaxLen)
	}
	todos := d.renderShapes(root)
	next := len(root.Content) // the key after the shapes carries their TODOs
	d.renderEffects(root)
	if todos != "" {
		k := root.Content[next]
		k.HeadComment = strings.TrimSuffix(todos+"\n"+k.HeadComment, "\n")
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("draft: render: %w", err)
	}
	return b.Bytes(), enc.Close()
}

// renderTarget writes target: the URL, method, headers, ID pointer and
// body encoding, each missing one a TODO.
func (d *Draft) renderTarget(root *yaml.Node) {
	target := mapping()
	d.put(target, "target.url", "url", orTodo(d.URL))
	d.put(target, "target.method", "method", cmp.Or(d.Method, "POST"))
	if len(d.Headers) > 0 {
		h := mapping()
		for _, x := range d.Headers {
			d.put(h, "target.headers."+x.Name, x.Name, orTodo(x.Value))
		}
		d.putNode(target, "target.headers", "headers", h)
	}
	d.put(target, "target.id", "id", orTodo(d.ID))
	if d.Body != "" {
		d.put(target, "target.body", "body", d.Body)
	}
	d.putNode(root, "target", "target", target)
}

// renderPayload writes the base payload (a TODO without one) and its
// validation rules, sorted by pointer so the file reads the same each time.
func (d *Draft) renderPayload(root *yaml.Node) {
	if d.Payload != nil {
		d.put(root, "payload", "payload", d.Payload)
	} else {
		d.put(root, "payload", "payload", contract.Todo)
	}
	if len(d.Rules) > 0 {
		rules := mapping()
		for _, ptr := range slices.Sorted(maps.Keys(d.Rules)) {
			d.put(rules, "payload_rules."+ptr, ptr, flow(d.Rules[ptr]))
		}
		d.putNode(root, "payload_rules", "payload_rules", rules)
	}
}

// renderStatuses writes the refusals' statuses; one the probes could not
// tell apart is a TODO.
func (d *Draft) renderStatuses(root *yaml.Node) {
	if len(d.Statuses) == 0 {
		return
	}
	st := mapping()
	for _, o := range []string{"conflict", "in_flight", "invalid"} {
		if s, ok := d.Statuses[o]; ok && s == nil {
			d.put(st, "statuses."+o, o, contract.Todo) // a status the probes could not tell
		} else if ok {
			d.put(st, "statuses."+o, o, flow(s))
		}
	}
	d.putNode(root, "statuses", "statuses", st)
}

// renderAnswers writes answers: each outcome's matchers, in the order
// docs/contract.md lists the outcomes.
func (d *Draft) renderAnswers(root *yaml.Node) {
	if len(d.Answers) == 0 {
		return
	}
	an := mapping()
	for _, o := range []string{"created", "replayed", "conflict", "in_flight", "invalid"} {
		ms, ok := d.Answers[o]
		if !ok {
			continue
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, m := range ms {
			mn := mapping()
			d.put(mn, "", "status", flow([]int{m.Status}))
			if len(m.Equals) > 0 {
				d.put(mn, "", "equals", flow(m.Equals))
			}
			if m.ID != "" {
				d.put(mn, "", "id", m.ID)
			}
			seq.Content = append(seq.Content, mn)
		}
		d.putNode(an, "answers."+o, o, seq)
	}
	d.putNode(root, "answers", "answers", an)
}

// renderEffects writes the effect tables, or a TODO when the database
// showed none.
func (d *Draft) renderEffects(root *yaml.Node) {
	if len(d.Effects) == 0 {
		d.put(root, "effects", "effects", contract.Todo)
		return
	}
	effects := &yaml.Node{Kind: yaml.SequenceNode}
	for i, e := range d.Effects {
		p := fmt.Sprintf("effects[%d]", i)
		en := mapping()
		d.put(en, p+".table", "table", e.Table)
		switch {
		case e.Join != nil:
			d.put(en, p+".join", "join", flow(map[string]string{"column": e.Join.Column, "table": e.Join.Table}))
		default:
			d.put(en, p+".tenant", "tenant", orTodo(e.Tenant))
			d.put(en, p+".key", "key", orTodo(e.Key))
		}
		if e.ID != "" {
			d.put(en, p+".id", "id", e.ID)
		}
		d.put(en, p+".per_action", "per_action", max(e.PerAction, 1))
		if len(e.Fields) > 0 {
			d.put(en, p+".fields", "fields", e.Fields)
		}
		if e.References != nil {
			d.put(en, p+".references", "references", flow(map[string]string{"column": e.References.Column, "table": e.References.Table}))
		}
		effects.Content = append(effects.Content, en)
	}
	d.putNode(root, "effects", "effects", effects)
}

// renderShapes writes the identifiers' shapes, and returns the comments
// of the patterns RE2 cannot compile, which stand in for their fields.
func (d *Draft) renderShapes(root *yaml.Node) string {
	for _, f := range []struct{ path, value string }{{"key_format", d.KeyFormat}, {"key_pattern", d.KeyPattern}} {
		if f.value != "" {
			d.put(root, f.path, f.path, f.value)
		}
	}
	if len(d.Tenants) > 0 {
		d.put(root, "tenants", "tenants", flow(d.Tenants))
	}
	for _, f := range []struct{ path, value string }{{"tenant_format", d.TenantFormat}, {"tenant_pattern", d.TenantPattern}} {
		if f.value != "" {
			d.put(root, f.path, f.path, f.value)
		}
	}
	return strings.TrimPrefix(strings.TrimSuffix(d.KeyPatternTodo+"\n"+d.TenantPatternTodo, "\n"), "\n")
}

// flowValue marks a value to be written in flow style ({a: b}, [1, 2]).
type flowValue struct{ v any }

func flow(v any) flowValue { return flowValue{v} }

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func orTodo(s string) string { return cmp.Or(s, contract.Todo) }

// put adds key: value to m, with the note of path as its comment.
func (d *Draft) put(m *yaml.Node, path, key string, value any) {
	var n yaml.Node
	fv, isFlow := value.(flowValue)
	if isFlow {
		value = fv.v
	}
	if err := n.Encode(Normalise(value)); err != nil {
		n = yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprint(value)}
	}
	if isFlow {
		setFlow(&n)
	}
	if s, ok := value.(string); ok && s == contract.Todo {
		n.Style = 0 // a bare TODO, which Parse refuses
	}
	d.putNode(m, path, key, &n)
}

func (d *Draft) putNode(m *yaml.Node, path, key string, n *yaml.Node) {
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: key}
	if note := d.Notes[path]; note != "" && path != "" {
		if n.Kind == yaml.ScalarNode || n.Style == yaml.FlowStyle {
			n.LineComment = note
		} else {
			k.HeadComment = note
		}
	}
	m.Content = append(m.Content, k, n)
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
}

// Normalise writes whole numbers as integers: a document decoded as JSON
// holds float64s, and a typed decoder refuses 1250.0 for 1250.
func Normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Normalise(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Normalise(e)
		}
		return out
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return v
}
