package stress_test

import (
	"net"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/sample"
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
	// search goes on after the bug is shrunk: that is not shrinking.)
	if shrink := res.Failures[0].Shrink; shrink > budget+2*time.Second {
		t.Errorf("shrinking took %s with a budget of %s", shrink.Round(time.Millisecond), budget)
	}
	if n := res.Failures[0].Plan.NumCalls(); n != 1 {
		t.Errorf("minimal plan has %d calls, want the one that fails alone:\n%s", n, res.Failures[0].Plan)
	}
}
