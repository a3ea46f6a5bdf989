package procfaults_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// poolOfFour is a database URL whose service pool holds 4 connections,
// pgx's default on two cores: fewer than a burst of up to 16 calls.
func poolOfFour(t *testing.T) string {
	return pgtest.NewDatabase(t, cluster) + "&pool_max_conns=4"
}

// The db-stall nemesis as a statement barrier in the database proxy (issue
// 27): the correct key-first design, as processes with a pool of 4,
// passes 100 plans whose bursts have up to 16 calls, every burst's stall
// fired (the table lock left 15-22 of 100 executions inconclusive: a call
// waiting for a pool connection was invisible to it).
func TestBarrierPoolOfFourPasses(t *testing.T) {
	t.Parallel() // a database and processes each, as every test here
	bin := sampleBinary(t)
	cfg, err := sample.ProcessConfig([]string{bin}, poolOfFour(t), "key-first", ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Faults, cfg.DBStall = nil, "tickets"
	cfg.Plans, cfg.Seed = 100, 27
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass || res.Plans != cfg.Plans {
		t.Fatalf("verdict %s after %d plans: %v %+v", res.Verdict, res.Plans, res.Err, res.Failures)
	}
	stalls := res.Faults[model.FaultDBStall]
	t.Logf("db-stall fired %d of %d", stalls.Fired, stalls.Planned)
	if res.Unfired != 0 || stalls.Planned < 20 || stalls.Fired != stalls.Planned {
		t.Errorf("db-stall fired %d of %d, %d execution(s) unfired; notes %q", stalls.Fired, stalls.Planned, res.Unfired, res.Notes)
	}
}

// Under the barrier, with the same pool of 4, check-then-insert's race is
// still forced: a burst of two calls of one action writes two tickets.
func TestBarrierCatchesCheckThenInsert(t *testing.T) {
	t.Parallel()
	bin := sampleBinary(t)
	cfg, err := sample.ProcessConfig([]string{bin}, poolOfFour(t), "check-then-insert", ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Faults, cfg.DBStall = nil, "tickets"
	cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.MaxBugs = 40, 27, time.Minute, 1
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || len(res.Failures) == 0 || res.Failures[0].Check != checks.DuplicateEffect {
		t.Fatalf("verdict %s (%v %+v), want %s", res.Verdict, res.Err, res.Failures, checks.DuplicateEffect)
	}
	f := res.Failures[0]
	if len(f.Plan.Steps) != 1 || f.Plan.Steps[0].Kind != model.StepBurst || len(f.Plan.Steps[0].Calls) != 2 {
		t.Errorf("minimal plan:\n%swant one burst of two calls", f.Plan)
	}
	if stalls := res.Faults[model.FaultDBStall]; stalls.Fired == 0 {
		t.Errorf("db-stall fired %d of %d", stalls.Fired, stalls.Planned)
	}
}
