package stress_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The correct sample passes plans whose calls lose replies, drop requests
// and are delivered twice, and every fault planned fired; a service that
// enqueues a notification on every replay is caught.
func TestProxyFaultsRun(t *testing.T) {
	t.Parallel()
	kinds := []model.Fault{model.FaultLoseReply, model.FaultDropRequest, model.FaultDoubleDelivery}
	for _, mode := range []string{sample.Correct, "outbox-on-retry"} {
		t.Run(mode, func(t *testing.T) {
			svc := startSample(t, mode, ticketsvc.LayoutKeys)
			cfg, err := svc.Config(40, 7)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Faults, cfg.ShrinkTime, cfg.MaxBugs = kinds, 5*time.Second, 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if mode != sample.Correct {
				if res.Verdict != checks.Fail || len(res.Failures) == 0 || res.Failures[0].Check != checks.DuplicateEffect {
					t.Fatalf("verdict %s (%v), want IDEM-001", res.Verdict, res.Err)
				}
				return
			}
			if res.Verdict != checks.Pass {
				t.Fatalf("verdict %s: %v (%+v)", res.Verdict, res.Err, res.Failures)
			}
			assertAllFired(t, res, kinds)
		})
	}
}

// A delayed answer is held past the client's timeout: the fault fires and
// the correct sample passes.
func TestDelayRun(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(10, 3)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTP.Timeout = 500 * time.Millisecond
	if cfg.Target, err = client.NewHTTP(cfg.HTTP, nil); err != nil {
		t.Fatal(err)
	}
	cfg.Faults = []model.Fault{model.FaultDelay}
	cfg.World = gen.DefaultWorld()
	cfg.World.MaxBurst, cfg.World.MaxSteps = 0, 4
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass {
		t.Fatalf("verdict %s: %v (%+v)", res.Verdict, res.Err, res.Failures)
	}
	assertAllFired(t, res, cfg.Faults)
}
