package engine

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// shrinkTries is how often a smaller candidate is run before it is given up:
// a race that shows one time in two still shows within a few tries.
const shrinkTries = 3

// shrink makes a failing plan smaller after rapid is done. rapid accepts a
// smaller plan only when it fails again at once, the same way; a plan whose
// failure needs a race to go one way (which of two calls wins) makes it
// stop early and call the test flaky. This pass tries each smaller
// candidate up to shrinkTries times and keeps it when it shows the same
// bug, or a more severe one no other bug stands for: delta debugging over
// steps and calls, then simpler calls. It ends by h.shrinkBy, like rapid's
// shrinking before it; minimal says it ended because no candidate of the
// plan failed again, not because time or the run ran out.
func (r *runner) shrink(ctx context.Context, h *shrinking, f *findings.Failure) (_ *findings.Failure, minimal bool) {
	// Whether rapid's half was cut does not matter here: only this pass's
	// last round says whether a smaller candidate fails.
	rapidCut := h.cut
	h.cut = false
	defer func() { h.cut = h.cut || rapidCut }()
	for {
		if !time.Now().Before(h.shrinkBy) || ctx.Err() != nil || r.stop != nil {
			return f, false
		}
		improved := false
		cands := shrink.Candidates(f.Plan)
		if shrink.Restarts(f.Plan) {
			// rapid shrank no fault of a plan that restarts (bugs.go).
			cands = append(cands, shrink.EarlierFaults(f.Plan, r.cfg.Faults)...)
		}
		if v, ok := bugid.ViolationOf(f.Violations, h.best.Check); ok && v.Action != (model.Action{}) {
			// First the plan cut at once to the calls of the action being shrunk: a
			// call of another action that hangs (or crashes the target)
			// makes every candidate that keeps it cost a call timeout,
			// and removing such calls one round at a time spends the
			// budget.
			if q := shrink.OfAction(r.cfg.Contract, f.Plan, v.Action); q.String() != f.Plan.String() && len(q.Steps) > 0 && shrink.RestartsAfterCrashes(q) {
				cands = append([]model.Plan{q}, cands...)
			}
		}
		if g, kind := r.firstFailing(ctx, h, cands, shrink.Restarts(f.Plan)); g != nil {
			f, improved, h.kind = g, true, kind
			h.best = f
		}
		if !time.Now().Before(h.shrinkBy) || ctx.Err() != nil || r.stop != nil {
			return f, false
		}
		if !improved {
			return f, !h.cut && r.stop == nil && ctx.Err() == nil
		}
	}
}

// firstFailing returns the first of cands that shows the bug being shrunk
// again, with the bug as it shows now. Each candidate gets shrinkTries
// runs in turn, unless the plan being shrunk restarts the service
// (restarting): then each candidate is run once, in order, and only when
// none fails are they given the rest of their shrinkTries, in order, so
// that a failure that repeats at once (most do) pays one restart per
// candidate that does not show it, not shrinkTries, and a race still gets
// every try before its plan is called minimal. A candidate that restarts
// and has no burst is run once only: its calls go one at a time, so
// nothing in it races, and every run of it costs a restart (and a
// crash's recovery). A plan that does not restart keeps the order in
// which a candidate that fails only on its second try is taken before a
// later one: its candidates are cheap, and the path its shrink takes (the
// zoo's minimal plans, the cut shrinks that keep two bugs apart) stays
// the one pinned by the in-process tests.
func (r *runner) firstFailing(ctx context.Context, h *shrinking, cands []model.Plan, restarting bool) (*findings.Failure, bugid.ID) {
	passes := []int{shrinkTries}
	if restarting {
		passes = []int{1, shrinkTries - 1}
	}
	retry := make([]bool, len(cands))
	for pass, tries := range passes {
		for i, cand := range cands {
			if pass > 0 && !retry[i] {
				continue
			}
			if !time.Now().Before(h.shrinkBy) || ctx.Err() != nil || r.stop != nil {
				return nil, bugid.ID{}
			}
			g, kind, again := r.failsAgain(ctx, h, cand, h.kind, tries)
			if g != nil {
				return g, kind
			}
			retry[i] = again && (shrink.Racy(cand) || !shrink.Restarts(cand))
		}
	}
	return nil, bugid.ID{}
}

// failsAgain runs a plan up to tries times and returns its failure when it
// shows bug again (showsAgain), with the bug as it shows now; again says
// whether trying it more might (not after a hang).
func (r *runner) failsAgain(ctx context.Context, h *shrinking, plan model.Plan, bug bugid.ID, tries int) (_ *findings.Failure, _ bugid.ID, again bool) {
	runCtx, cancel := context.WithDeadline(ctx, h.shrinkBy)
	defer cancel()
	for range tries {
		vs, hist, err := r.once(runCtx, plan)
		if err != nil && ctx.Err() == nil && runCtx.Err() != nil {
			h.cut = true // the budget ran out with the candidate in flight
			return nil, bugid.ID{}, false
		}
		if err != nil {
			r.stop = cmp.Or(r.stop, err)
			return nil, bugid.ID{}, false
		}
		if got, ok := bugid.ShowsAgain(r.idsOf(plan, hist, vs), bug, r.known); ok {
			return &findings.Failure{Check: got.Check, Plan: plan, History: hist, Violations: vs}, got, false
		}
		// A candidate that hung instead (another bug: identical calls
		// that never get an answer) is given up at once: trying again
		// costs a call timeout each time, and a hang is no race that
		// goes the other way next time.
		if bug.Check != checks.NoAnswer && slices.ContainsFunc(vs, func(v checks.Violation) bool { return v.Check == checks.NoAnswer }) {
			return nil, bugid.ID{}, false
		}
	}
	return nil, bugid.ID{}, true
}
