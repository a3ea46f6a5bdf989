// Package stresstest holds what the end-to-end test binaries of stress
// (stress, stress/zoo, stress/shapes, stress/apis/..., stress/procfaults, stress/deps, stress/bugrows) share: plans written
// by hand, the sample served over a database of its own, and the
// assertions on a run's faults and minimal plans. A top-of-stack test
// harness, like internal/testbed/sample, which it serves.
package stresstest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// StartSample serves the sample service in one mode and layout over a new
// database of cluster, closed when the test ends.
func StartSample(t *testing.T, cluster *pgtemp.Cluster, mode string, layout ticketsvc.Layout) *sample.Service {
	t.Helper()
	svc, err := sample.Start(t.Context(), pgtest.NewDatabase(t, cluster), mode, layout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// StartSampleDBProxied is StartSample with the service's database
// reached through the PostgreSQL proxy its run starts (its Config's
// DBProxy), for the database faults done at the proxy.
func StartSampleDBProxied(t *testing.T, cluster *pgtemp.Cluster, mode string, layout ticketsvc.Layout) *sample.Service {
	t.Helper()
	svc, err := sample.StartDBProxied(t.Context(), pgtest.NewDatabase(t, cluster), mode, layout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// SampleRun is a run of the sample service in one mode (keys layout)
// over a new database of cluster, as the demo runs it: plans plans from
// seed, under the db-stall nemesis on tickets, a 5 s shrink budget.
func SampleRun(t *testing.T, cluster *pgtemp.Cluster, mode string, plans int, seed uint64) stress.Config {
	t.Helper()
	svc := StartSample(t, cluster, mode, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(plans, seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBStall = "tickets"
	cfg.ShrinkTime = 5 * time.Second
	return cfg
}

// Call is a step of one call.
func Call(tenant, key string, variant int) model.Step {
	return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: tenant, Key: key, Variant: variant}}}
}

// Burst releases the calls of single-call steps together.
func Burst(steps ...model.Step) model.Step {
	b := model.Step{Kind: model.StepBurst}
	for _, s := range steps {
		b.Calls = append(b.Calls, s.Calls...)
	}
	return b
}

// Faulted is a single call that carries a planned fault.
func Faulted(tenant, key string, f model.Fault) model.Step {
	s := Call(tenant, key, 0)
	s.Calls[0].Fault = f
	return s
}

// AssertAllFired fails t unless every fault kind of kinds was planned and
// fired every time it was, no case had an unfired fault, and no other kind
// was counted.
func AssertAllFired(t *testing.T, res *stress.Result, kinds []model.Fault) {
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

// OneEncoding marks every re-encoded call as encoding 1: which of the
// byte-different encodings a shrink ends on does not matter.
func OneEncoding(p model.Plan) model.Plan {
	q := model.Plan{Steps: make([]model.Step, len(p.Steps))}
	for i, s := range p.Steps {
		q.Steps[i] = s
		q.Steps[i].Calls = slices.Clone(s.Calls)
		for j := range q.Steps[i].Calls {
			q.Steps[i].Calls[j].Encoding = min(q.Steps[i].Calls[j].Encoding, 1)
		}
	}
	return q
}

// SameCalls reports whether the plans make the same calls, one at a time,
// in any order (two keys that fold into one action show it either way
// round).
func SameCalls(p, q model.Plan) bool {
	calls := func(p model.Plan) []string {
		var out []string
		for _, s := range p.Steps {
			if s.Kind != model.StepCall {
				return nil
			}
			out = append(out, s.Calls[0].String())
		}
		slices.Sort(out)
		return out
	}
	return len(p.Steps) == len(q.Steps) && slices.Equal(calls(p), calls(q))
}

// Skeleton is the plan with every call's payload variant, encoding and
// noise at zero, and its tenants and keys named in the order they appear
// (A, B, …; k1, k2, …).
func Skeleton(p model.Plan) model.Plan {
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
			if c.UniqueOf != "" {
				c.UniqueOf = rename(keys, c.UniqueOf, fmt.Sprintf("k%d", len(keys)+1))
			}
		}
		out.Steps = append(out.Steps, s)
	}
	return out
}

var (
	binOnce sync.Once
	bin     string
	binErr  error
)

// SampleBinary is the ticketsvc binary, built once per test binary for
// the tests that run the sample as processes (in pgtest.BinaryDir: tests
// of one binary share it). Under -short it
// skips the test.
func SampleBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the sample service and starts processes")
	}
	binOnce.Do(func() {
		dir, err := pgtest.BinaryDir()
		if err != nil {
			binErr = err
			return
		}
		bin, binErr = sample.BuildBinary(dir)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

// SampleBinaryBesideCluster is SampleBinary, built while the binary's
// PostgreSQL cluster starts (pgtest.Shared, which the tests' first
// database would otherwise start after the build): for a binary whose
// first tests need both, the two waits overlap. A cluster that cannot
// start fails the test at its first database, as before.
func SampleBinaryBesideCluster(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the sample service and starts processes")
	}
	started := make(chan struct{})
	go func() {
		defer close(started)
		_, _ = pgtest.Shared()
	}()
	defer func() { <-started }()
	return SampleBinary(t)
}
