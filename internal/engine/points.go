package engine

import (
	"context"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/points"
)

// learnPoints learns the points and failures the run's faults are dealt
// (internal/points), before the search, and deals the run's first plans
// again in the world that names them.
func (r *runner) learnPoints(ctx context.Context) {
	d := r.dealer()
	d.Learn(ctx)
	d.DealCodes()
	r.cfg.World = d.World
	r.deals = gen.Deals(r.cfg.World)
}

// dealer learns, deals and tells the points of the run's faults, in its
// world and coverage.
func (r *runner) dealer() *points.Dealer {
	return &points.Dealer{Session: r.session, Faults: r.cfg.Faults, World: r.cfg.World, Coverage: r.coverage,
		NS: model.Namespace(r.run + "-points-"), Note: r.note}
}
