package crashpoints_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The correct designs pass a default run (every fault kind their
// contract plans, crash-at among them) with a crash at every point of a
// first call's database work and of its retry's tried: the run learns the
// points from an unfaulted call and its retry, deals each a plan of the
// first ones whatever else it plans, and says it tried N of N of both.
// (Dealt by chance, a default run left a point or two untried.)
func TestCrashAtEveryPointPasses(t *testing.T) {
	bin := sampleBinary(t)
	t.Parallel() // beside TestCrashAtCatchesTwoTransactions' seeds
	for _, mode := range []string{sample.Correct, "key-first"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // a database and processes each
			cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(cfg.Faults, model.FaultCrashAt) || len(cfg.Faults) < 8 {
				t.Fatalf("%s plans %v: want every kind, crash-at among them", mode, cfg.Faults)
			}
			// Plans enough for the deals: a dozen kinds, a point each of
			// a first call's work and of a retry's, four failures.
			cfg.Plans, cfg.Seed = 40, 5
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != checks.Pass {
				for _, f := range res.Failures {
					t.Errorf("%v\n%s%v", f.Violations, f.Plan, f.History)
				}
				t.Fatalf("verdict %s: %v %v", res.Verdict, res.Err, res.Notes)
			}
			var points, retry []string
			for tr := range res.Coverage {
				if p, ok := strings.CutPrefix(string(tr), string(model.FaultCrashAt)+" "); ok {
					if r, ok := coverage.OfRetry(p); ok {
						retry = append(retry, r)
					} else {
						points = append(points, p)
					}
				}
			}
			if len(points) < 4 || len(retry) < 2 {
				t.Errorf("points learned %q, a retry's %q: want at least a statement's and the commit's of each", points, retry)
			}
			note := assertEveryPointTried(t, res)
			t.Logf("%d plans in %s; %s", res.Plans, res.Total.Round(time.Millisecond), note)
		})
	}
}

// The two designs that split a call's work over two transactions are
// caught by one default run on each of ten seeds, with a crash between
// the transactions named in the minimal plan: a crash, the restart, the
// retry.
// seeds is how many seeds each mode must be caught on.
var seeds = uint64(10)

func TestCrashAtCatchesTwoTransactions(t *testing.T) {
	if testing.Short() {
		t.Skip("ten runs that each shrink a crash, a restart and a retry: minutes")
	}
	t.Parallel() // beside TestCrashAtEveryPointPasses' modes
	bin := sampleBinary(t)
	for _, mode := range []string{"key-tx-first", "effects-tx-first"} {
		for seed := uint64(1); seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("%s/%d", mode, seed), func(t *testing.T) {
				// Most of a seed's time is spent waiting on restarts and
				// the recovery time, on a database and processes of its
				// own: the seeds share the machine well.
				t.Parallel()
				twoTransactionsCaught(t, bin, mode, seed)
			})
		}
	}
}

// twoTransactionsCaught fails t unless a default run of mode from seed
// finds its bug, shrunk to a crash between the transactions, the restart
// and the retry.
func twoTransactionsCaught(t *testing.T, bin, mode string, seed uint64) {
	cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	// One bug is all a seed must show; a crash, a restart and a retry
	// shrink well within 15 s (the default 30 s budget spent on ten seeds
	// of two modes is five minutes more).
	cfg.Seed, cfg.MaxBugs, cfg.ShrinkTime = seed, 1, 15*time.Second
	start := time.Now()
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || res.Failures[0].Check != sample.Expected[mode] {
		t.Fatalf("seed %d: verdict %s (%v), want %s", seed, res.Verdict, res.Err, sample.Expected[mode])
	}
	f := res.Failures[0]
	steps := skeleton(f.Plan).Steps
	if len(steps) != 3 || steps[0].Calls[0].Fault != model.FaultCrashAt || steps[1].Kind != model.StepRestart {
		t.Errorf("seed %d: minimal plan, want a crash-at, the restart, the retry:\n%s", seed, f.Plan)
	}
	t.Logf("seed %d: %d plans, %s (found in %s, shrunk from %d steps in %s, %d executions in all), minimal:\n%s",
		seed, res.Plans, time.Since(start).Round(time.Second), f.Detect.Round(time.Millisecond),
		len(f.Original.Steps), f.Shrink.Round(time.Millisecond), res.Executions, f.Plan)
}
