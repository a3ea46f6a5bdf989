package onerun_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/model"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// call is a step of one call.
func call(tenant, key string, variant int) model.Step {
	return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: tenant, Key: key, Variant: variant}}}
}

// burst releases the calls of single-call steps together.
func burst(steps ...model.Step) model.Step {
	b := model.Step{Kind: model.StepBurst}
	for _, s := range steps {
		b.Calls = append(b.Calls, s.Calls...)
	}
	return b
}

// faulted is a single call that carries a planned fault.
func faulted(tenant, key string, f model.Fault) model.Step {
	s := call(tenant, key, 0)
	s.Calls[0].Fault = f
	return s
}

// skeleton is the plan with every call's payload variant, encoding and
// noise at zero, and its tenants and keys named in the order they appear
// (A, B, …; k1, k2, …), as in stress/shapes.
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
