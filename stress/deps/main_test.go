package deps_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/stress"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// call is a step of one call.
func call(tenant, key string, variant int) model.Step {
	return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: tenant, Key: key, Variant: variant}}}
}

// assertAllFired: every kind planned fired every time, and no other kind
// was counted.
func assertAllFired(t *testing.T, res *stress.Result, kinds []model.Fault) {
	t.Helper()
	if res.Unfired != 0 {
		t.Errorf("%d case(s) with an unfired fault", res.Unfired)
	}
	for _, k := range kinds {
		c := res.Faults[k]
		if c.Planned == 0 || c.Fired != c.Planned {
			t.Errorf("%s: fired %d of %d, want all of at least one", k, c.Fired, c.Planned)
		}
	}
	for k := range res.Faults {
		if !slices.Contains(kinds, k) {
			t.Errorf("fault %s counted, never enabled", k)
		}
	}
}

// skeleton is the plan with every call's payload variant, encoding and
// noise at zero, and its tenants and keys named in the order they appear.
func skeleton(p model.Plan) model.Plan {
	var out model.Plan
	tenants, keys := map[string]string{}, map[string]string{}
	rename := func(names map[string]string, name, first string) string {
		if _, ok := names[name]; !ok {
			names[name] = first
		}
		return names[name]
	}
	for _, s := range p.Steps {
		s.Calls = slices.Clone(s.Calls)
		for i := range s.Calls {
			c := &s.Calls[i]
			c.Variant, c.Encoding, c.Noise = 0, 0, model.NoiseNone
			c.Tenant = rename(tenants, c.Tenant, string(rune('A'+len(tenants))))
			c.Key = rename(keys, c.Key, fmt.Sprintf("k%d", len(keys)+1))
		}
		out.Steps = append(out.Steps, s)
	}
	return out
}
