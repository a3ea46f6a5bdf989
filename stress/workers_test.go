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
	"github.com/idemstress/idemstress/internal/sample"
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
// seed finds the same first failing plan after the same number of plans
// with one worker and with four.
func TestWorkersFindTheSamePlan(t *testing.T) {
	svc := startSample(t, "no-payload-check", ticketsvc.LayoutKeys)
	var found []string
	for _, workers := range []int{1, 4} {
		cfg, err := svc.Config(100, 5)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Workers = workers
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != checks.Fail || res.Failure == nil {
			t.Fatalf("workers %d: verdict %s (%v), want fail", workers, res.Verdict, res.Err)
		}
		found = append(found, fmt.Sprintf("after %d plans:\n%s", res.Plans, res.Failure.Original))
		t.Logf("workers %d: first failing plan after %d plans:\n%s", workers, res.Plans, res.Failure.Original)
	}
	if found[0] != found[1] {
		t.Errorf("one worker found\n%s\nfour found\n%s", found[0], found[1])
	}
}
