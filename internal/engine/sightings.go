package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/sighting"
)

// sightingOf is the reported bug that shrunk failure f, of identity own
// and firing fired, is a sighting of, and why; nil when f is a bug of its
// own (internal/sighting), its experiments run within h's budget.
func (r *runner) sightingOf(ctx context.Context, h *shrinking, f *findings.Failure, own bugid.ID, fired []bugid.ID) (*findings.Failure, findings.Why) {
	x := sighting.Experiments{Contract: r.cfg.Contract, Bugs: r.bugs,
		ShowsIn: func(plan model.Plan, wanted func(bugid.ID) bool) sighting.Outcome {
			return r.showsIn(ctx, h, plan, wanted)
		}}
	return x.Of(f, own, fired)
}

// showsIn executes plan up to shrinkTries times and says whether a
// violation whose identity wanted accepts showed.
func (r *runner) showsIn(ctx context.Context, h *shrinking, plan model.Plan, wanted func(bugid.ID) bool) sighting.Outcome {
	// A little time past the shrink budget: the answer decides which row
	// a bug is reported in.
	runCtx, cancel := context.WithDeadline(ctx, h.shrinkBy.Add(h.budget/10))
	defer cancel()
	for range shrinkTries {
		vs, hist, err := r.once(runCtx, plan)
		if err != nil {
			if ctx.Err() != nil || runCtx.Err() == nil {
				r.stop = cmp.Or(r.stop, err)
			}
			return sighting.Unknown
		}
		if slices.ContainsFunc(r.idsOf(plan, hist, vs), wanted) {
			return sighting.Shown
		}
	}
	return sighting.NotShown
}
