package deps_test

import (
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/redistest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// A Redis failure at the call's first write there, alone, then its retry:
// the design that skips a record Redis failed to store commits the ticket
// without it, and the retry creates a second (IDEM-001), unless its Redis
// client retried the failure itself (go-redis retries LOADING and a cut
// connection); the design whose store fails the transaction answers 5xx
// with no effect, and the reservation that PostgreSQL decides carries on
// without Redis. Each failure fires at the RESP proxy.
func TestDepErrorAtRedis(t *testing.T) {
	bin := sampleBinary(t) // skips under -short first
	redistest.Server(t)
	t.Parallel() // beside TestRedisModes' runs
	for _, tc := range []struct {
		mode, point string
		want        checks.ID // "": no violation
	}{
		{"keys-in-redis-fail-open", "redis OOM", checks.DuplicateEffect},
		{"keys-in-redis-fail-open", "redis BUSY", checks.DuplicateEffect},
		{"keys-in-redis-fail-open", "redis LOADING", ""},
		{"keys-in-redis-durable", "redis OOM", ""},
		{"keys-in-redis-durable", "redis cut", ""},
		{"keys-in-redis-reserved", "redis OOM", ""},
		{"keys-in-redis-reserved", "redis cut", ""},
	} {
		t.Run(tc.mode+" "+tc.point, func(t *testing.T) {
			t.Parallel() // a Redis, replicas and a database each
			failed := faulted("A", "k1", model.FaultDepError)
			failed.Calls[0].Point = tc.point
			plan := model.Plan{Steps: []model.Step{failed, call("A", "k1", 0)}}
			tr := tryAlone(t, bin, tc.mode, plan)
			if len(tr.History.Faults) == 0 || !tr.History.Faults[0].Fired || tr.History.Faults[0].Point != tc.point {
				t.Fatalf("the dep-error %s did not fire: %+v", tc.point, tr.History.Faults)
			}
			wantViolation(t, tr, tc.want)
		})
	}
}

// One default run deals dep-error each Redis failure with its retry: the
// reservation design passes with every failure tried (and db-error's,
// which share the run's failures), the design that
// skips a record Redis failed to store is caught, shrunk to the failure
// shrinking prefers and its retry.
func TestDepErrorRuns(t *testing.T) {
	bin := sampleBinary(t) // skips under -short first
	redistest.Server(t)
	t.Parallel() // beside the other tests' runs, all waiting on processes
	t.Run("keys-in-redis-reserved", func(t *testing.T) {
		t.Parallel() // a Redis, replicas and a database each
		cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), "keys-in-redis-reserved", ticketsvc.LayoutKeys)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Faults, cfg.Plans, cfg.Seed = []model.Fault{model.FaultDBError, model.FaultDepError}, 13, 5
		res := mustPass(t, cfg)
		assertAllFired(t, res, cfg.Faults)
		for _, c := range fault.DepErrorCodes {
			if tr := coverage.PointFired(model.FaultDepError, fault.DepErrorPoint("redis", c)); res.Coverage[tr] == 0 {
				t.Errorf("%s never tried; coverage %v", tr, res.Coverage)
			}
		}
		for _, want := range []string{"db-error: tried 4 of 4 failures", "dep-error: tried 6 of 6 failures"} {
			if !slices.Contains(res.Notes, want) {
				t.Errorf("notes %q: no %q", res.Notes, want)
			}
		}
	})
	t.Run("keys-in-redis-fail-open", func(t *testing.T) {
		t.Parallel() // a Redis, replicas and a database each
		cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), "keys-in-redis-fail-open", ticketsvc.LayoutKeys)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.MaxBugs = 10, 5, time.Minute, 1
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != checks.Fail || len(res.Failures) == 0 || res.Failures[0].Check != sample.Expected["keys-in-redis-fail-open"] {
			t.Fatalf("verdict %s (%v, %+v), want %s", res.Verdict, res.Err, res.Failures, sample.Expected["keys-in-redis-fail-open"])
		}
		f := res.Failures[0]
		failed := faulted("A", "k1", model.FaultDepError)
		failed.Calls[0].Point = "redis OOM"
		want := model.Plan{Steps: []model.Step{failed, call("A", "k1", 0)}}.String()
		if got := skeleton(f.Plan).String(); got != want {
			t.Errorf("minimal plan (not minimal %v):\n%swant\n%s", f.NotMinimal, got, want)
		}
		t.Logf("%s: %s", f.Check, f.Plan.Compact())
	})
}
