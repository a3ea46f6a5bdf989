package sinks_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// A webhook sent after the transaction's last write, right before its
// COMMIT, is a phantom only when the process dies between the two: crash
// lands at the last effect table's write, before the webhook left, and
// misses it; crash-at, held by the PostgreSQL proxy at "before commit 1",
// lands there and catches it as IDEM-019, minimal.
func TestWebhookAtCommitNeedsCrashAt(t *testing.T) {
	t.Parallel() // a database, a sink and processes each, as every test here
	bin := stresstest.SampleBinary(t)
	run := func(t *testing.T, faults ...model.Fault) *stress.Result {
		cfg, err := sample.WebhookConfig([]string{bin}, pgtest.NewDatabase(t, cluster), ticketsvc.WebhookAtCommit)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Faults = faults
		cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.MaxBugs = 20, 3, 30*time.Second, 1
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		res := run(t, model.FaultCrash)
		if res.Verdict != checks.Pass {
			t.Fatalf("verdict %s (%v): want the bug missed, as crash lands before the webhook leaves", res.Verdict, res.Failures)
		}
		stresstest.AssertAllFired(t, res, []model.Fault{model.FaultCrash, model.FaultRestart})
	})
	t.Run("crash-at", func(t *testing.T) {
		t.Parallel()
		res := run(t, model.FaultCrashAt)
		if res.Verdict != checks.Fail || len(res.Failures) == 0 {
			t.Fatalf("verdict %s, want fail with %s (notes %q)", res.Verdict, checks.PhantomDelivery, res.Notes)
		}
		f := res.Failures[0]
		t.Logf("%s: %s %s", f.Check, f.Plan.Compact(), f.Violations[0].Detail)
		if f.Check != checks.PhantomDelivery {
			t.Errorf("primary check %s, want %s: %v", f.Check, checks.PhantomDelivery, f.Violations)
		}
		first := f.Plan.Steps[0]
		if f.NotMinimal || len(f.Plan.Steps) > 2 || len(first.Calls) != 1 || first.Calls[0].Fault != model.FaultCrashAt || first.Calls[0].Point != "before commit 1" {
			t.Errorf("plan %s (not minimal %v): want A/k1 v0 [crash-at before commit 1]; restart", f.Plan.Compact(), f.NotMinimal)
		}
	})
}
