package stress_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/observe"
	"github.com/idemstress/idemstress/stress"
)

func call(tenant, key string, variant int) model.Step {
	return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: tenant, Key: key, Variant: variant}}}
}

// burst releases the calls of single-call steps together.
func burst(steps ...model.Step) model.Step {
	b := model.Step{Kind: model.StepBurst}
	for _, s := range steps {
		b.Calls = append(b.Calls, s.Calls...)
	}
	return b
}

// Through the real stack (HTTP on loopback, PostgreSQL), on both schema
// layouts, with bursts released by last-byte synchronisation under the
// db-stall nemesis, every bug mode is caught by its check and shrunk to the
// two calls that show it, and the correct mode passes, for several seeds.
func TestSampleModes(t *testing.T) {
	reencoded := call("A", "k1", 0)
	reencoded.Calls[0].Encoding = 1
	traced := call("A", "k1", 0)
	traced.Calls[0].Noise = model.NoiseQuery
	minimal := map[string][]model.Step{
		"outbox-on-retry":      {call("A", "k1", 0), call("A", "k1", 0)},
		"no-payload-check":     {call("A", "k1", 0), call("A", "k1", 1)},
		"global-keys":          {call("A", "k1", 0), call("B", "k1", 0)},
		"raw-body-fingerprint": {call("A", "k1", 0), reencoded},
		"check-then-insert":    {burst(call("A", "k1", 0), call("A", "k1", 0))},
		"unique-violation-500": {burst(call("A", "k1", 0), call("A", "k1", 0))},
		"process-mutex":        {burst(call("A", "k1", 0), call("A", "k1", 0))},
		"partial-fingerprint":  {call("A", "k1", 0), call("A", "k1", 1)},
		"query-in-key":         {call("A", "k1", 0), traced},
		// In the keys layout the trimmed key is stored: one call shows it.
		"trimmed-keys": {call("A", model.Shaped("k1", model.ShapeSpace), 0)},
	}
	taggedMinimal := map[string][]model.Step{
		// The tagged layout keeps no key column: the second call shows it.
		"trimmed-keys": {call("A", "k1", 0), call("A", model.Shaped("k1", model.ShapeSpace), 0)},
	}
	layouts, seeds := sample.Layouts(), []uint64{1, 2}
	if testing.Short() {
		// -short (the race-detector run in CI): one layout, one seed.
		layouts, seeds = layouts[:1], seeds[:1]
	}
	for _, layout := range layouts {
		for _, mode := range sample.Modes() {
			t.Run(string(layout)+"/"+mode, func(t *testing.T) {
				if sample.FaultsOnly(mode) {
					t.Skip("shows only under restarts or crashes: TestProcessFaultModes")
				}
				if _, ok := minimal[mode]; !ok && !sample.Passes(mode) {
					t.Fatalf("bug mode %s has no expected minimal plan here", mode)
				}
				svc := startSample(t, mode, layout)
				seeds := seeds
				if sample.Replicas(mode) > 1 {
					// A burst's calls that land on one replica queue on its
					// mutex, where the nemesis cannot see them, and each such
					// burst waits out the stall: one seed is slow enough.
					seeds = seeds[:1]
				}
				for _, seed := range seeds {
					cfg, err := svc.Config(100, seed)
					if err != nil {
						t.Fatal(err)
					}
					cfg.DBStall = "tickets"
					if mode != sample.Correct {
						cfg.MaxBugs = 1 // what is checked here is the first
					}
					res, err := stress.Run(t.Context(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					if sample.Passes(mode) {
						if res.Verdict != checks.Pass || res.Plans != 100 {
							t.Fatalf("seed %d: correct service: verdict %s after %d plans, want pass after 100: %v; %+v %v", seed, res.Verdict, res.Plans, res.Err, res.Failures, res.Outside)
						}
						continue
					}
					if res.Verdict != checks.Fail || len(res.Failures) == 0 {
						t.Fatalf("seed %d: %s not caught: verdict %s (%v)", seed, mode, res.Verdict, res.Err)
					}
					t.Logf("seed %d: caught after %d plans in %s, shrunk in %s over %d executions", seed, res.Plans,
						res.Detect.Round(time.Millisecond), res.Failures[0].Shrink.Round(time.Millisecond), res.Executions)
					for _, f := range res.Failures[1:] {
						t.Logf("seed %d: also %s after %d plans, shrunk in %s:\n%s", seed, f.Check, f.Plans, f.Shrink.Round(time.Millisecond), f.Plan)
					}
					if got := res.Failures[0].Check; got != sample.Expected[mode] {
						t.Errorf("seed %d: primary check %s, want %s: %v", seed, got, sample.Expected[mode], res.Failures[0].Violations)
					}
					want := model.Plan{Steps: minimal[mode]}
					if steps, ok := taggedMinimal[mode]; ok && layout == ticketsvc.LayoutTagged {
						want = model.Plan{Steps: steps}
					}
					if got := res.Failures[0].Plan; oneEncoding(got).String() != want.String() && !(mode == "trimmed-keys" && sameCalls(got, want)) {
						t.Errorf("seed %d: minimal plan\n%s want\n%s", seed, got, want)
					}
				}
			})
		}
	}
}

// The library API inside go test: the correct service passes.
func TestCheckCorrectService(t *testing.T) {
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
	cfg.Effects = append([]observe.Effect(nil), cfg.Effects...)
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

// oneEncoding marks every re-encoded call as encoding 1: which of the
// byte-different encodings a shrink ends on does not matter.
// sameCalls: the plans make the same calls, one at a time, in any order
// (two keys that fold into one action show it either way round).
func sameCalls(p, q model.Plan) bool {
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

func oneEncoding(p model.Plan) model.Plan {
	q := model.Plan{Steps: make([]model.Step, len(p.Steps))}
	for i, s := range p.Steps {
		q.Steps[i] = model.Step{Kind: s.Kind, Calls: append([]model.Call(nil), s.Calls...)}
		for j := range q.Steps[i].Calls {
			q.Steps[i].Calls[j].Encoding = min(q.Steps[i].Calls[j].Encoding, 1)
		}
	}
	return q
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
