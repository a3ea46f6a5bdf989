package messages_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/redistest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// eventRun is a run of the sample in an event mode: its events published
// to a Redis stream that idemstress starts and reads as a sink.
func eventRun(t *testing.T, mode string, plans int) *stress.Result {
	t.Helper()
	bin := stresstest.SampleBinary(t)
	redistest.Server(t)
	cfg, err := sample.EventConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plans, cfg.Seed, cfg.ShrinkTime = plans, 3, 30*time.Second
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The outbox relay publishing to a Redis stream passes 40 plans under
// crashes of the service and of the Redis: each event added once per
// action after its commit, again under the same event ID when an XADD
// failed, read from the Redis as the sink's deliveries. The run's first
// plans are dealt each of its faults (its five kinds, a crash alone and
// with its retry), so 40 plans try every one several times over, as
// AssertAllFired checks; 100 took two minutes of restarts more.
func TestEventRelayPasses(t *testing.T) {
	t.Parallel() // a Redis, a service and a database each
	res := eventRun(t, sample.EventRelay, 40)
	if res.Verdict != checks.Pass {
		for _, f := range res.Failures {
			t.Errorf("%s: %s %v", f.Check, f.Plan.Compact(), f.Violations)
		}
		t.Fatalf("verdict %s, want pass (notes %q)", res.Verdict, res.Notes)
	}
	stresstest.AssertAllFired(t, res, sample.EventFaults(sample.EventRelay))
	status := res.Statuses()
	for _, id := range []checks.ID{checks.PhantomDelivery, checks.DuplicateDelivery, checks.LostDelivery} {
		if status[id] != checks.Passed {
			t.Errorf("%s %s, want passed: %s", id, status[id], report.CoverageLine(res.Coverage, status))
		}
	}
	if res.Coverage[coverage.Delivered] == 0 {
		t.Errorf("no message read from the stream: %s", report.CoverageLine(res.Coverage, status))
	}
}

// A replay that publishes its ticket again, as a new event, is one
// finding, IDEM-020, with the minimal plan of a call and its replay;
// the entries it names are the stream's.
func TestEventOnReplayCaught(t *testing.T) {
	t.Parallel()
	res := eventRun(t, sample.EventOnReplay, 30)
	if res.Verdict != checks.Fail || len(res.Failures) != 1 {
		t.Fatalf("verdict %s with %d findings, want fail with one, %s (notes %q)", res.Verdict, len(res.Failures), checks.DuplicateDelivery, res.Notes)
	}
	f := res.Failures[0]
	t.Logf("%s: %s %s", f.Check, f.Plan.Compact(), f.Violations[0].Detail)
	if f.Check != checks.DuplicateDelivery {
		t.Errorf("primary check %s, want %s: %v", f.Check, checks.DuplicateDelivery, f.Violations)
	}
	want := model.Plan{Steps: []model.Step{stresstest.Call("A", "k1", 0), stresstest.Call("A", "k1", 0)}}
	if got := stresstest.Skeleton(f.Plan).String(); f.NotMinimal || got != want.String() {
		t.Errorf("plan (not minimal %v):\n%swant a call and its replay", f.NotMinimal, got)
	}
	if len(f.History.Deliveries) != 2 || f.History.Deliveries[1].Method != "XADD" || len(f.History.Deliveries[1].Header["Entry-Id"]) != 1 {
		t.Errorf("deliveries %+v: want the two XADDs of the stream, with their entry IDs", f.History.Deliveries)
	}
	if exp := report.Explain(f.Plan, f.History, f.Violations); !strings.Contains(exp, "delivery to events: XADD accepted") {
		t.Errorf("the explanation does not show the stream's entries:\n%s", exp)
	}
}
