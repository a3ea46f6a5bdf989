package interp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/interp"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// Under key_required: false every keyless call is a create of its own, so
// each must send unique values of its own: a correct service with a unique
// column would refuse a second keyless create of the tenant as taken, and
// be blamed for it. The values still carry the tag, which still names the
// tenant the row counts under.
func TestKeylessCreatesSendUniqueValuesOfTheirOwn(t *testing.T) {
	for _, format := range []model.IDFormat{"", model.IDWord, model.IDDNSLabel} {
		t.Run(string(format), func(t *testing.T) {
			var mu sync.Mutex
			var names []string
			tgt := client.Func(func(_ context.Context, req client.Request) (client.Response, error) {
				var body struct{ Name, Note string }
				if err := json.Unmarshal(req.Body, &body); err != nil {
					t.Errorf("body %s: %v", req.Body, err)
				}
				mu.Lock()
				names = append(names, body.Name, body.Note)
				mu.Unlock()
				return client.Response{Status: 201, ID: "x"}, nil
			})
			c := model.Contract{Payload: map[string]any{"name": "{{tag}}", "note": "inst"}, Unique: []string{"/name", "/note"},
				KeylessCreates: true, TagFormat: format}.WithDefaults()
			keyless := model.Call{Tenant: "A", NoKey: true}
			plan := model.Plan{Steps: []model.Step{
				{Kind: model.StepCall, Calls: []model.Call{keyless}},
				{Kind: model.StepCall, Calls: []model.Call{keyless}},
				{Kind: model.StepBurst, Calls: []model.Call{keyless, keyless}},
			}}
			ns := model.Namespace("i4kx9a1c-")
			if _, err := (interp.Executor{Target: tgt, Spec: contract.Spec{Contract: c}}).Execute(t.Context(), ns, plan, time.Now()); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for i, n := range names {
				if seen[n] {
					t.Errorf("two keyless creates sent the unique value %q: %q", n, names)
				}
				seen[n] = true
				if i%2 == 0 {
					if tenant, key, ok := identifiers.ParseTag(c, ns, n); !ok || !strings.EqualFold(tenant, "A") || key != "" {
						t.Errorf("tag %q parses as tenant %q key %q (%v), want tenant A and no key", n, tenant, key, ok)
					}
				}
			}
		})
	}
}
