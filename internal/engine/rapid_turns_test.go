package engine

import (
	"context"
	"flag"
	"sync"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
)

// meeting is a trier whose first try waits, up to a bound, for the other
// run's first try: they meet only if both runs execute at once.
type meeting struct {
	arrived *sync.WaitGroup
	all     chan struct{}
	once    sync.Once
	met     bool
}

func (m *meeting) Try(ctx context.Context, ns model.Namespace, plan model.Plan) (Trial, error) {
	m.once.Do(func() {
		m.arrived.Done()
		select {
		case <-m.all:
			m.met = true
		case <-time.After(20 * time.Second):
		case <-ctx.Done():
		}
	})
	return Trial{NS: ns}, nil
}

// Two runs of one process shrink with rapid at once: they take turns only
// while a rapid.Check reads its seed. Before, a run held rapid for its
// whole shrink, and the parallel tests of a binary shrank one at a time
// while the machine waited.
func TestRapidShrinksOfTwoRunsOverlap(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	cfg := engineConfig(1)
	// Each try runs within its shrink's rapid half of the budget: longer
	// than the 20 s a first try waits for the other's.
	cfg.ShrinkTime = 2 * time.Minute
	runs := []*meeting{{arrived: &arrived, all: all}, {arrived: &arrived, all: all}}
	var wg sync.WaitGroup
	for i, m := range runs {
		wg.Go(func() {
			r := newRunner(cfg, uint64(i+1), time.Now(), m)
			now := time.Now()
			h := &shrinking{best: &findings.Failure{Check: checks.DuplicateEffect}, world: cfg.World,
				budget: cfg.ShrinkTime, shrinkBy: now.Add(cfg.ShrinkTime), rapidBy: now.Add(cfg.ShrinkTime / 2)}
			r.shrinkRapid(t.Context(), h, DeriveSeed(uint64(i+1), 0))
		})
	}
	wg.Wait()
	for i, m := range runs {
		if !m.met {
			t.Errorf("run %d: its rapid shrink did not run beside the other's: they took turns", i+1)
		}
	}
}

// A run's shrinks leave rapid's flags as they found them: a program's own
// rapid tests, run after it, check as many cases as they ask, from their
// own seed, and shrink for as long as they ask. Before, the last shrink
// left one check, its plan's seed and its budget set for good.
func TestRapidFlagsGivenBack(t *testing.T) {
	names := []string{"rapid.checks", "rapid.seed", "rapid.shrinktime", "rapid.nofailfile"}
	value := func(name string) string {
		rapidMu.Lock()
		defer rapidMu.Unlock()
		return flag.Lookup(name).Value.String()
	}
	before := map[string]string{}
	for _, name := range names {
		before[name] = value(name)
	}
	cfg := engineConfig(20)
	r := runEngine(t, cfg, &scripted{rules: []rule{raceDuplicates(false)}}, 1)
	if len(r.bugs) != 1 || r.bugs[0].NotMinimal {
		t.Fatalf("%d bugs reported; want the race, shrunk by rapid", len(r.bugs))
	}
	for _, name := range names {
		if got := value(name); got != before[name] {
			t.Errorf("-%s is %s after the run, want %s as before it", name, got, before[name])
		}
	}
}
