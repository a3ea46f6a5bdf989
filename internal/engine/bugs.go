package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/shrink"
)

// A run reports every distinct bug it finds, like Hypothesis's multiple-bug
// reporting: after a failure is shrunk, the search goes on, and a plan
// counts as a new bug when it fires a violation whose identity (bugid.ID: the
// check and the transition that broke) no reported bug's minimal plan
// fired. Such a violation names the bug, and the failure is shrunk on its
// own, keeping its check. The violations a minimal plan fires beside its
// own are symptoms of the same bug (a tenant leak leaves the other
// tenant's action without rows: 007 with 002), not bugs of their own.
//
// Once shrunk, a new failure is still not reported when it turns out to be
// a reported bug seen another way (fateOf); its identity is then taken as
// explained from then on, and the result counts it (Attributed):
//   - its minimal plan's own identity is a reported bug's (a duplicate
//     first seen in a burst that shows in sequence as well);
//   - it needs a race (its minimal plan's calls of the action are in a
//     burst) and the plan fires a reported bug's more severe check beside
//     it: two calls with different payloads both accepted, 004, by a
//     service whose race lets duplicates through, 001. A failure that
//     shows in sequence is never a symptom: it breaks by itself;
//   - its minimal plan's bursts, sent one call after another, show only
//     reported bugs, one of them at least as severe as its own (another
//     tenant's action answered in a burst is not linearizable, 013, where
//     in sequence it is a tenant leak, 007). A race that shows nothing as
//     severe in sequence (a duplicate under a burst, where the calls one
//     after another only show a misread replay) is a bug of its own.
//
// A failure whose shrinking ran out of budget is reported whatever it
// fires beside its own check, marked not minimal: a found bug is never
// dropped for what a half-shrunk plan also shows.

// idsOf are the identities of a trial's violations, most severe first.
func (r *runner) idsOf(plan model.Plan, hist model.History, vs []checks.Violation) []bugid.ID {
	ids := make([]bugid.ID, len(vs))
	for i, v := range vs {
		ids[i] = bugid.Of(r.cfg.Contract, plan, hist, v)
	}
	return ids
}

// known reports whether an identity is already a reported bug's, one of
// its symptoms, or explained as one.
func (r *runner) known(id bugid.ID) bool {
	return slices.ContainsFunc(r.explained, func(e bugid.ID) bool { return bugid.SameID(e, id) }) ||
		slices.ContainsFunc(r.reported, func(e bugid.ID) bool { return bugid.SameID(e, id) })
}

// shrinking is one bug's shrink under way: its smallest failing plan so
// far, and the budget (shrinkBudget from when the bug was found, rapid's part
// ending half way).
type shrinking struct {
	best *findings.Failure
	// world is what rapid draws the candidates from: the one the failing
	// plan was drawn in, so that its first case is that plan.
	world gen.World
	// kind is the bug as the smallest plan so far shows it.
	kind              bugid.ID
	shrinkBy, rapidBy time.Time
	budget            time.Duration
	// cut says the budget cut an execution short; logs are what rapid
	// said while it shrank.
	cut  bool
	logs []string
	// passed and failed hold what rapid's candidates showed, by plan
	// (passKey): rapid draws most candidates again and again (some 700
	// runs of 10 to 30 distinct plans for a bug that shows in two calls),
	// and each is a full execution. rapidOnce runs none of them twice
	// that passed, and none a third time that failed twice.
	passed map[string]bool
	failed map[string]*failedRuns
}

// failedRuns is a plan that showed the bug being shrunk: how often, and
// its last run.
type failedRuns struct {
	runs int
	vs   []checks.Violation
	hist model.History
}

// rapidOnce runs plan for rapid's shrink, as once does, unless h says
// how it goes. A plan that did not show the bug passes again without a
// run: rapid saw it pass, and a race it lost once is the second pass's
// to retry. A plan that showed it twice shows it again without a run.
// Until then each failure is a real run: rapid accepts a smaller plan
// only when it fails twice in a row the same way, which is how it tells
// a flaky failure (Flaky), and the shrink's path through a race stays a
// path of plans that failed.
func (r *runner) rapidOnce(ctx context.Context, h *shrinking, plan model.Plan) ([]checks.Violation, model.History, error) {
	key := passKey(plan)
	if h.passed[key] {
		return nil, model.History{}, nil
	}
	if f := h.failed[key]; f != nil && f.runs >= 2 {
		return f.vs, f.hist, nil
	}
	vs, hist, err := r.once(ctx, plan)
	if err != nil {
		return vs, hist, err
	}
	if _, ok := bugid.ViolationOf(vs, h.best.Check); !ok {
		h.passed[key] = true
	} else if f := h.failed[key]; f != nil {
		f.runs, f.vs, f.hist = f.runs+1, vs, hist
	} else {
		h.failed[key] = &failedRuns{runs: 1, vs: vs, hist: hist}
	}
	return vs, hist, nil
}

func passKey(p model.Plan) string { return fmt.Sprintf("%+v", p.Steps) }

// shrinkCandidates is how many candidates as costly as the failing plan
// a shrink's budget fits at least: a plan that hangs costs a call timeout,
// one that crashes the target a recovery period, and thirty seconds of
// those are two or three candidates, too few to shrink anything.
const shrinkCandidates = 16

// shrinkBudget is the time one bug's shrink may take: ShrinkTime, or more when the
// failing plan took long enough (took) that ShrinkTime would fit fewer
// than shrinkCandidates runs of it.
func shrinkBudget(shrinkTime, took time.Duration) time.Duration {
	return max(shrinkTime, shrinkCandidates*took)
}

// shrinkBug shrinks the failing plan a found, which counts for bug, and adds
// it to the run's bugs unless it turns out to be one of them (fateOf).
func (r *runner) shrinkBug(ctx context.Context, a attempt, bug bugid.ID) {
	now := time.Now()
	f := &findings.Failure{Check: bug.Check, Plan: a.plan, History: a.trial.History, Violations: a.trial.Violations,
		Original: a.plan, PlanSeed: a.seed, Plans: a.index + 1, Detect: now.Sub(r.t0)}
	budget := shrinkBudget(r.cfg.ShrinkTime, a.took)
	h := &shrinking{best: f, world: a.world, kind: bug, budget: budget, shrinkBy: now.Add(budget), rapidBy: now.Add(budget / 2)}
	r.current = h
	r.progress("shrink")
	// rapid's shrinking needs many cheap runs: of a plan so slow that the
	// budget was stretched to fit 16 of them (a hang, a crash), or one
	// that restarts the service (a restart, and a crash's recovery, in
	// every candidate), half the budget in rapid's random candidates
	// leaves this pass, which goes straight for the likely cuts, too
	// little to end minimal. This pass alone ends where rapid would have
	// led it: it also drops a call's fault.
	if budget > r.cfg.ShrinkTime || shrink.Restarts(a.plan) {
		h.rapidBy = now
	} else {
		r.shrinkRapid(ctx, h, a.seed)
	}
	minimal := false
	if r.stop == nil {
		h.best, minimal = r.shrink(ctx, h, h.best)
	}
	r.current = nil
	best := h.best
	best.Original, best.PlanSeed, best.Plans, best.Detect = a.plan, a.seed, a.index+1, f.Detect
	best.Shrink, best.Budget = time.Since(now), budget
	best.NotMinimal = !minimal
	// rapid ends by running the minimal plan once more; when that run did
	// not fail the same way, the target is not deterministic here. (Not
	// when the budget cut that run short.)
	best.Flaky = !h.cut && slices.ContainsFunc(h.logs, func(l string) bool { return strings.Contains(l, "[rapid] flaky test") })
	fired := r.idsOf(best.Plan, best.History, best.Violations)
	own := h.kind
	if i := slices.IndexFunc(fired, func(id bugid.ID) bool { return bugid.SameKind(id, h.kind) }); i >= 0 {
		own = fired[i]
	}
	why := bugid.FateOf(own, fired, r.known, minimal)
	if why == "" && minimal && r.stop == nil && ctx.Err() == nil && r.explainedInSequence(ctx, h, best, own) {
		why = "a race whose calls sent one after another show only reported bugs"
	}
	var under *findings.Failure
	var seen findings.Why
	if why == "" && r.stop == nil && ctx.Err() == nil {
		under, seen = r.sightingOf(ctx, h, best, own, fired)
	}
	r.settle(best, bug, own, fired, minimal, why, under, seen)
	r.progress("search")
}

// settle files a shrunk failure: attributed to a reported bug when why
// says which, listed under reported bug under when it is a sighting of it
// (seen says why), else reported as own. bug, the
// identity the failure was first seen as, is taken as found only when
// shrinking kept its kind: a plan that turned, one candidate smaller,
// into a more severe new bug (a hang in a burst whose two calls alone
// answer 500) shows the first one no more, and the search must stay free
// to find it.
func (r *runner) settle(best *findings.Failure, bug, own bugid.ID, fired []bugid.ID, minimal bool, why string, under *findings.Failure, seen findings.Why) {
	found := []bugid.ID{own}
	if bugid.SameKind(bug, own) {
		found = append(found, bug)
	}
	if why != "" {
		r.explained = append(r.explained, found...)
		r.attributed++
		r.note(fmt.Sprintf("a failure first seen as %s shrank to %s and was attributed to a reported bug: it is %s", bug, best.Plan.Compact(), why))
		return
	}
	findings.SetID(best, own)
	if under != nil {
		r.note(findings.Note(best, under, seen))
		findings.See(under, best, seen)
	} else {
		r.bugs = append(r.bugs, best)
	}
	// What a minimal plan fires beside its own check is the same bug
	// seen another way; what a half-shrunk plan fires may be another
	// bug of its own (a hang beside a 500 in one big burst), which the
	// search must still be free to find.
	if minimal {
		r.reported = append(r.reported, fired...)
	}
	r.reported = append(r.reported, found...)
}

// explainedInSequence reports whether f's plan, its bursts sent one call
// after another, explains f's bug, own (explainsRace).
func (r *runner) explainedInSequence(ctx context.Context, h *shrinking, f *findings.Failure, own bugid.ID) bool {
	seq := shrink.InSequence(f.Plan)
	if seq.String() == f.Plan.String() {
		return false
	}
	// A little time past the shrink budget: the answer decides whether
	// a bug is reported at all.
	runCtx, cancel := context.WithDeadline(ctx, h.shrinkBy.Add(h.budget/10))
	defer cancel()
	for range shrinkTries {
		vs, hist, err := r.once(runCtx, seq)
		if err != nil {
			// Out of time, or the run cannot go on: the failure stands.
			if ctx.Err() != nil || runCtx.Err() == nil {
				r.stop = cmp.Or(r.stop, err)
			}
			return false
		}
		if len(vs) > 0 {
			return bugid.ExplainsRace(own, r.idsOf(seq, hist, vs), r.known)
		}
	}
	return false
}

// shrinkRapid has rapid shrink the failure being shrunk, drawn from seed: a
// rapid.Check of one case whose seed is the plan's starts from that plan.
func (r *runner) shrinkRapid(ctx context.Context, h *shrinking, seed uint64) {
	// rapid reads its seed from a process-wide flag when Check starts:
	// runs of one process take turns from setting it until their Check
	// has read it (the property's first run), and shrink at once. The time
	// spent waiting for that turn is not this shrink's: its deadlines move
	// by it, or parallel tests would end their shrinks short of minimal.
	asked := time.Now()
	rapidMu.Lock()
	unlock := sync.OnceFunc(rapidMu.Unlock)
	defer unlock()
	waited := time.Since(asked)
	h.shrinkBy, h.rapidBy = h.shrinkBy.Add(waited), h.rapidBy.Add(waited)
	if err := borrowRapid(seed); err != nil {
		r.stop = err
		return
	}
	defer func() {
		unlock()
		rapidMu.Lock()
		defer rapidMu.Unlock()
		giveBackRapid()
	}()
	var rt tb
	h.passed, h.failed = map[string]bool{}, map[string]*failedRuns{}
	rapid.Check(&rt, func(t *rapid.T) {
		unlock() // the seed is read: rapid passes it to its first run
		r.property(ctx, t, h)
	})
	h.logs = rt.logs
}

// record keeps a smaller plan that fails with the bug being shrunk's message:
// rapid's last failing run of the property is the minimal plan it shrank
// to, and it keeps a smaller plan only when it fails with the same message.
func (h *shrinking) record(plan model.Plan, hist model.History, vs []checks.Violation, v checks.Violation) {
	if old, _ := bugid.ViolationOf(h.best.Violations, h.best.Check); v.Message == old.Message {
		h.best = &findings.Failure{Check: h.best.Check, Plan: plan, History: hist, Violations: vs}
	}
}
