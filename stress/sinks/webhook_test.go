package sinks_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// webhookRun is a run of the sample in mode with its webhook as a sink.
func webhookRun(t *testing.T, mode string, plans int) *stress.Result {
	t.Helper()
	bin := stresstest.SampleBinary(t)
	cfg, err := sample.WebhookConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.MaxBugs = plans, 3, 30*time.Second, 1
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Each webhook bug is caught by the check that names it, with a plan of
// at most two calls and the restart a crash needs.
func TestWebhookBugsCaught(t *testing.T) {
	t.Parallel()
	for _, mode := range sample.WebhookModes()[1:] {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			res := webhookRun(t, mode, 30)
			if res.Verdict != checks.Fail || len(res.Failures) == 0 {
				t.Fatalf("verdict %s, want fail with %s (notes %q)", res.Verdict, sample.Expected[mode], res.Notes)
			}
			f := res.Failures[0]
			t.Logf("%s: %s %s", f.Check, f.Plan.Compact(), f.Violations[0].Detail)
			if f.Check != sample.Expected[mode] {
				t.Errorf("primary check %s, want %s: %v", f.Check, sample.Expected[mode], f.Violations)
			}
			if f.NotMinimal || len(f.Plan.Steps) > 3 {
				t.Errorf("plan %s (not minimal %v): want at most two calls and a restart", f.Plan.Compact(), f.NotMinimal)
			}
		})
	}
}

// The outbox relay passes: every event delivered once per action after
// its commit, kept across the sink's refusals under its event ID, and
// across crashes before and after the commit.
func TestWebhookRelayPasses(t *testing.T) {
	t.Parallel()
	res := webhookRun(t, sample.WebhookRelay, 30)
	if res.Verdict != checks.Pass {
		for _, f := range res.Failures {
			t.Errorf("%s: %s %v", f.Check, f.Plan.Compact(), f.Violations)
		}
		t.Fatalf("verdict %s, want pass (notes %q)", res.Verdict, res.Notes)
	}
	stresstest.AssertAllFired(t, res, sample.WebhookFaults(sample.WebhookRelay))
	// Each check of sinks judged something: the run made its transition.
	status := res.Statuses()
	for _, id := range []checks.ID{checks.PhantomDelivery, checks.DuplicateDelivery, checks.EventIDChanged, checks.LostDelivery} {
		if status[id] != checks.Passed {
			t.Errorf("%s %s, want passed: %s", id, status[id], report.CoverageLine(res.Coverage, status))
		}
	}
	if res.Coverage[coverage.SinkRefused] == 0 || res.Coverage[coverage.Delivered] <= res.Coverage[coverage.SinkRefused] {
		t.Errorf("deliveries %d, refused by the sink %d: want the sink's 500s to have fired and each to be sent again",
			res.Coverage[coverage.Delivered], res.Coverage[coverage.SinkRefused])
	}
}

// Under every fault of the sink in turn (a 500, a dropped connection, an
// answer slower than the relay waits) the relay delivers each event
// once, under the ID it started with; the bug that renames a retry is
// caught under them too.
func TestWebhookUnderEverySinkFault(t *testing.T) {
	t.Parallel()
	bin := stresstest.SampleBinary(t)
	for _, mode := range []string{sample.WebhookRelay, "new-event-id-on-retry"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cfg, err := sample.WebhookConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Faults = nil
			cfg.Sinks[0].Faults = []model.SinkFault{model.Sink500, model.SinkDrop, model.SinkSlow}
			// Longer than the relay waits for an answer (a second), and a
			// slow attempt holds up the events behind it.
			cfg.Sinks[0].Slow, cfg.Sinks[0].DeliveryWithin = 2*time.Second, 20*time.Second
			if mode != sample.WebhookRelay {
				// A renamed retry leaves its event's first ID missing for
				// good: each plan that shows the bug waits out the window
				// twice (the late look), and the shrink's budget stretches
				// to sixteen such plans. The renamed ID comes in seconds.
				cfg.Sinks[0].DeliveryWithin = 5 * time.Second
			}
			cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.MaxBugs = 6, 3, 30*time.Second, 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Failures {
				t.Logf("%s after %d plans (%s), shrunk in %s of %s (not minimal %v): %s",
					f.Check, f.Plans, f.Detect.Round(time.Millisecond), f.Shrink.Round(time.Millisecond), f.Budget, f.NotMinimal, f.Plan.Compact())
			}
			want := checks.Pass
			if mode != sample.WebhookRelay {
				want = checks.Fail
			}
			if res.Verdict != want {
				t.Fatalf("verdict %s, want %s (failures %v)", res.Verdict, want, res.Failures)
			}
			if want == checks.Fail && res.Failures[0].Check != checks.EventIDChanged {
				t.Errorf("primary check %s, want %s", res.Failures[0].Check, checks.EventIDChanged)
			}
		})
	}
}
