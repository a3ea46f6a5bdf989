package shapes_test

import (
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

// burst releases the calls of single-call steps together.
func burst(steps ...model.Step) model.Step {
	b := model.Step{Kind: model.StepBurst}
	for _, s := range steps {
		b.Calls = append(b.Calls, s.Calls...)
	}
	return b
}

// assertAllFired: every kind planned fired every time, and no other kind
// was counted (as in package stress's tests, a binary apart).
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

// faulted is a single call that carries a planned fault.
func faulted(tenant, key string, f model.Fault) model.Step {
	s := call(tenant, key, 0)
	s.Calls[0].Fault = f
	return s
}
