package engine

import (
	"context"
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
