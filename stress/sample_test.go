package stress_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The library API inside go test: the correct service passes.
func TestCheckCorrectService(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(50, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res := stress.Check(t, cfg); res.Verdict != checks.Pass {
		t.Fatalf("verdict %s", res.Verdict)
	}
}

func TestRunTargetUnreachable(t *testing.T) {
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(20, 1)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	cfg.Target = nil
	cfg.HTTP.URL = "http://" + closed + "/tickets"
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Inconclusive || !errors.Is(res.Err, client.ErrUnreachable) {
		t.Fatalf("verdict %s, err %v; want inconclusive, unreachable", res.Verdict, res.Err)
	}
}

// Interrupted in the middle of a run (SIGINT cancels the context), Run
// returns at once with what it has: inconclusive and interrupted, not a
// pass. A context ended before the run even starts is an error.
func TestRunInterrupted(t *testing.T) {
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var calls atomic.Int64
	real := cfg.Target.(*client.HTTP)
	defer real.CloseIdleConnections() // Run closes only the target it is given
	cfg.Target = client.Func(func(ctx context.Context, req client.Request) (client.Response, error) {
		if calls.Add(1) == 20 {
			cancel()
		}
		return real.Do(ctx, req)
	})
	res, err := stress.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Verdict != checks.Inconclusive || !errors.Is(res.Err, stress.ErrInterrupted) || res.Plans >= 1000 {
		t.Fatalf("verdict %s after %d plans, err %v; want inconclusive, interrupted, early", res.Verdict, res.Plans, res.Err)
	}

	done, stop := context.WithCancel(t.Context())
	stop()
	if _, err := stress.Run(done, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with an ended context: err %v, want context.Canceled", err)
	}
}

func TestRunSchemaMismatch(t *testing.T) {
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(20, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Effects = append([]effect.Effect(nil), cfg.Effects...)
	cfg.Effects[0].Key = "idempotency_key"
	_, err = stress.Run(t.Context(), cfg)
	if !errors.Is(err, observe.ErrSchema) {
		t.Fatalf("err %v, want ErrSchema", err)
	}
	for _, want := range []string{`"idempotency_key"`, `"tickets"`, "request_key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// A Go target that panics stops the run as inconclusive, whether the call
// was made one at a time (rapid catches the panic) or in a burst (a
// goroutine of ours): never a pass, never a crash.
func TestRunTargetPanics(t *testing.T) {
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	for _, bursts := range []int{0, 16} {
		cfg, err := svc.Config(20, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg.World.MaxBurst = bursts
		cfg.Target = client.Func(func(context.Context, client.Request) (client.Response, error) {
			panic("boom")
		})
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != checks.Inconclusive || res.Err == nil || !strings.Contains(res.Err.Error(), "boom") && !strings.Contains(res.Err.Error(), "panic") {
			t.Errorf("bursts %d: verdict %s, err %v; want inconclusive naming the panic", bursts, res.Verdict, res.Err)
		}
	}
}
