package stress_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// Against a service that accepts connections and never answers, every call
// waits out its timeout: shrinking must still end within its budget (give
// or take the calls in flight when it runs out), and the one call that
// fails alone is the minimal plan.
func TestShrinkTimeIsABudget(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out call timeouts")
	}
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var held []net.Conn // accepted, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	cfg, err := svc.Config(10, 5)
	if err != nil {
		t.Fatal(err)
	}
	const timeout, budget = 300 * time.Millisecond, 3 * time.Second
	cfg.Target, cfg.HTTP.URL, cfg.HTTP.Timeout, cfg.ShrinkTime = nil, "http://"+ln.Addr().String()+"/tickets", timeout, budget
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || res.Failures[0].Check != checks.NoAnswer {
		t.Fatalf("verdict %s (%v), want IDEM-014", res.Verdict, res.Err)
	}
	// One plan in flight when the budget runs out is cut at once. (The
	// search goes on after the bug is shrunk: that is not shrinking.) The
	// budget fits a few runs of the failing plan, each call of which may
	// wait out its timeout.
	f := res.Failures[0]
	if most := max(budget, 16*time.Duration(f.Original.NumCalls())*timeout+time.Second); f.Budget < budget || f.Budget > most {
		t.Errorf("shrink budget %s, want %s to %s", f.Budget, budget, most)
	}
	if f.Shrink > f.Budget+2*time.Second {
		t.Errorf("shrinking took %s with a budget of %s", f.Shrink.Round(time.Millisecond), f.Budget)
	}
	if n := res.Failures[0].Plan.NumCalls(); n != 1 {
		t.Errorf("minimal plan has %d calls, want the one that fails alone:\n%s", n, res.Failures[0].Plan)
	}
}

// Issue 16.9: a found bug is never dropped. When shrinking is cut short
// (here the run is interrupted as soon as it starts), the smallest
// failing plan so far is reported, marked not minimal in the result, the
// report and the case file's source.
func TestCutShrinkIsReportedNotMinimal(t *testing.T) {
	svc := startSample(t, "no-payload-check", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(100, 4)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cfg.Progress = func(p stress.Progress) {
		if p.Phase == "shrink" {
			cancel()
		}
	}
	res, err := stress.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || len(res.Failures) != 1 || !res.Failures[0].NotMinimal {
		t.Fatalf("verdict %s, %d failure(s) (%v); want the one found, marked not minimal", res.Verdict, len(res.Failures), res.Err)
	}
	cs := res.Rows("svc")
	if !cs[0].NotMinimal {
		t.Errorf("report row not marked not minimal: %+v", cs[0])
	}
	var out strings.Builder
	if err := report.WriteTable(&out, cs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not minimal") {
		t.Errorf("the table does not say the plan is not minimal:\n%s", out.String())
	}
}
