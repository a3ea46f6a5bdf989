package stress_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// overlap wraps a target and records the most plans (namespaces) that had
// a call in flight at one time.
type overlap struct {
	client.Target
	mu       sync.Mutex
	inFlight map[string]int
	most     int
}

func (o *overlap) Do(ctx context.Context, req client.Request) (client.Response, error) {
	ns := req.Tenant[:strings.LastIndexByte(req.Tenant, '-')]
	o.mu.Lock()
	o.inFlight[ns]++
	o.most = max(o.most, len(o.inFlight))
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		if o.inFlight[ns]--; o.inFlight[ns] == 0 {
			delete(o.inFlight, ns)
		}
		o.mu.Unlock()
	}()
	return o.Target.Do(ctx, req)
}

// With four workers, plans run at once, each in its namespace, and a
// correct service still passes every one of them (run with -race).
func TestWorkersRunPlansAtOnce(t *testing.T) {
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(60, 11)
	if err != nil {
		t.Fatal(err)
	}
	o := &overlap{Target: cfg.Target, inFlight: map[string]int{}}
	cfg.Target, cfg.Workers = o, 4
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass || res.Plans != 60 || res.Executions != 60 {
		t.Fatalf("verdict %s after %d plans, %d executions, want pass after 60: %v %v", res.Verdict, res.Plans, res.Executions, res.Err, res.Outside)
	}
	if o.most < 2 {
		t.Errorf("at most %d plan(s) had calls in flight at once with 4 workers", o.most)
	}
}

// The plans a run tries depend on its seed, not on its workers: the same
// seed finds the same failing plans, after the same number of plans, with
// one worker and with four. (Without bursts: which payload wins a burst is
// up to the race, so whether one fails is too.)
func TestWorkersFindTheSamePlans(t *testing.T) {
	t.Parallel()
	svc := startSample(t, "no-payload-check,global-keys", ticketsvc.LayoutKeys)
	var found []string
	for _, workers := range []int{1, 4} {
		cfg, err := svc.Config(60, 5)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Workers, cfg.World = workers, gen.DefaultWorld()
		cfg.World.MaxBurst = 0
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != checks.Fail || len(res.Failures) != 2 {
			t.Fatalf("workers %d: verdict %s, %d bug(s) (%v), want two", workers, res.Verdict, len(res.Failures), res.Err)
		}
		var b strings.Builder
		for _, f := range res.Failures {
			fmt.Fprintf(&b, "%s found by plan %d:\n%s", f.Check, f.Plans, f.Original)
		}
		found = append(found, b.String())
		t.Logf("workers %d:\n%s", workers, b.String())
	}
	if found[0] != found[1] {
		t.Errorf("one worker found\n%s\nfour found\n%s", found[0], found[1])
	}
}
