package payloads_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

func uniqueContract() model.Contract {
	c := model.DefaultContract()
	c.Payload = map[string]any{"name": "vm", "label": "web-{{tag}}", "zone": "eu"}
	c.Unique = []string{"/name", "/label"}
	return c
}

// Each action sends unique values of its own, derived from its tag; a call
// with UniqueOf sends its holder's; variants never change them.
func TestUniqueValues(t *testing.T) {
	c := uniqueContract()
	ns := model.Namespace("ns1-")
	own := model.Call{Tenant: "A", Key: "k2"}
	borrow := own
	borrow.UniqueOf = "k1"
	holder := model.Call{Tenant: "A", Key: "k1"}
	id := func(call model.Call) payloads.Identity {
		i := payloads.Identity{Tag: identifiers.Tag(ns, c, call)}
		if call.UniqueOf != "" {
			i.Unique = identifiers.Tag(ns, c, model.Call{Tenant: call.Tenant, Key: call.UniqueOf})
		}
		return i
	}
	get := func(body []byte, ptr string) string { v, _ := payloads.Pointer(body, ptr); return v }
	for _, tc := range []struct {
		call        model.Call
		name, label string
	}{
		{own, "vm-ns1-Ak2.", "web-ns1-Ak2."},
		{holder, "vm-ns1-Ak1.", "web-ns1-Ak1."},
		{borrow, "vm-ns1-Ak1.", "web-ns1-Ak1."},
	} {
		for v := range 3 {
			body := payloads.RenderAs(c, id(tc.call), v, 0)
			if get(body, "/name") != tc.name || get(body, "/label") != tc.label {
				t.Errorf("%s v%d: %s; want name %q, label %q", tc.call, v, body, tc.name, tc.label)
			}
			if sent := payloads.Send(c, id(tc.call), v, 0); get(sent, "/name") != tc.name {
				t.Errorf("%s v%d sent %s; want name %q", tc.call, v, sent, tc.name)
			}
		}
	}
	if body := payloads.RenderAs(c, id(own), 1, 0); get(body, "/zone") == "eu" {
		t.Errorf("variant 1 %s: the one field that is not unique is not varied", body)
	}
	// The contract's own payload, with no action, is the base as written.
	if base := payloads.Render(c, "", 0, 0); get(base, "/name") != "vm" {
		t.Errorf("base %s", base)
	}
	// The base is cut so that the value stays within max_len.
	c.Payload["name"] = "virtualmachine"
	c.Fields = map[string]model.FieldRule{"/name": {MaxLen: 17}}
	if body := payloads.RenderAs(c, id(own), 0, 0); get(body, "/name") != "virtualm-ns1-Ak2." {
		t.Errorf("max_len 17: %s; want name virtualm-ns1-Ak2.", body)
	}
}

func TestCheckUnique(t *testing.T) {
	for _, tc := range []struct {
		unique []string
		rules  map[string]model.FieldRule
		want   string // "" for no error
	}{
		{[]string{"/name"}, nil, ""},
		{[]string{"/nothing"}, nil, "points at nothing"},
		{[]string{"/count"}, nil, "string field"},
		{[]string{"/key"}, nil, "is the key itself"},
		{[]string{"/name"}, map[string]model.FieldRule{"/name": {Fixed: true}}, "fixed or enum"},
		{[]string{"/name"}, map[string]model.FieldRule{"/name": {MaxLen: 10}}, "no room"},
		{[]string{"/name", "/name"}, nil, "twice"},
	} {
		c := model.DefaultContract()
		c.Payload = map[string]any{"name": "vm", "count": 3, "key": "{{key}}"}
		c.Unique, c.Fields = tc.unique, tc.rules
		err := payloads.CheckUnique(c)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("unique %v, rules %v: %v; want %q", tc.unique, tc.rules, err, tc.want)
		}
	}
}

// A taken answer is a refusal with no effect in any state; whether
// another action held the value is judged across actions (checks).
func TestJudgeTaken(t *testing.T) {
	c := uniqueContract()
	taken := model.Outcome{Kind: model.Taken, Status: 409}
	for _, s := range []reference.State{absent, present(p, "7")} {
		if rule, next := reference.Judge(c, s, reference.Input{Body: p}, taken); rule != reference.RuleHolds || len(next) != 1 || next[0].Present != s.Present {
			t.Errorf("state %s: rule %d, next %s", states([]reference.State{s}), rule, states(next))
		}
	}
	if rule, _ := reference.Judge(c, absent, reference.Input{Body: p, NoKey: true}, taken); rule != reference.RuleWrongStatus {
		t.Errorf("keyless taken: rule %d, want wrong status", rule)
	}
}
