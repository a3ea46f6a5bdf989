package checks_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// A key column that holds the key inside its template ("order-ns1-k1")
// is the action's, and a stored field that carries the key
// ("ref-{{key}}") holds it filled in: neither is a violation, while a
// field left unfilled, or another key, still is.
func TestKeyInTemplateRows(t *testing.T) {
	ns := model.Namespace("ns1-")
	c := model.DefaultContract()
	c.KeyTemplate = "order-{{key}}"
	c.Payload = map[string]any{"note": "ref-{{key}}"}
	body := payloads.Render(c, "", 0, 0)
	effects := []effect.Effect{{Table: "payments", Tenant: "tenant", Key: "idem_key", ID: "id", PerAction: 1,
		Fields: map[string]string{"note": "/note"}}}
	call := model.Call{Tenant: "A", Key: "k1"}
	for _, tc := range []struct {
		key, note string
		fires     checks.ID
	}{
		{"order-ns1-k1", "ref-ns1-k1", ""},
		{"order-ns1-k1", "ref-{{key}}", checks.FieldsDiffer},
		{"order-ns1-k1", "ref-ns1-k2", checks.FieldsDiffer},
		{"ns1-k1", "ref-ns1-k1", checks.MissingEffect},
	} {
		vs := checks.Evaluate(checks.Input{Contract: c, Effects: effects, NS: ns,
			History: model.History{Ops: []model.Op{{Call: call, Body: body, Start: 0, End: 10, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}}}},
			Rows:    model.Snapshot{"payments": {{Tenant: "ns1-A", Key: tc.key, ID: "7", Fields: map[string]string{"note": tc.note}}}},
		})
		fired := slices.ContainsFunc(vs, func(v checks.Violation) bool { return v.Check == tc.fires })
		if tc.fires == "" && len(vs) > 0 || tc.fires != "" && !fired {
			t.Errorf("key %q note %q: violations %v; want %q", tc.key, tc.note, vs, tc.fires)
		}
	}
}
