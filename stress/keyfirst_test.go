package stress_test

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/stress"
)

// A key-first service makes a concurrent duplicate wait on the first
// request's key row, not on the stalled table. The db-stall nemesis sees
// it all the same: over 100 plans it fires on every burst, and the
// correct design passes.
func TestKeyFirstPassesUnderDBStall(t *testing.T) {
	t.Parallel()
	plans := 100
	if testing.Short() {
		plans = 30
	}
	svc := startSample(t, "key-first", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(plans, 21)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBStall = "tickets"
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass || res.Plans != plans {
		t.Fatalf("verdict %s after %d plans: %v %+v", res.Verdict, res.Plans, res.Err, res.Failures)
	}
	stalls := res.Faults[model.FaultDBStall]
	if res.Unfired != 0 || stalls.Planned == 0 || stalls.Fired != stalls.Planned {
		t.Errorf("db-stall fired %d of %d, %d case(s) unfired", stalls.Fired, stalls.Planned, res.Unfired)
	}
}
