package stress

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/model"
)

// A run reports every distinct bug it finds, like Hypothesis's multiple-bug
// reporting: after a failure is shrunk, the search goes on, and a plan
// counts as a new bug when it fires a check that no reported bug's minimal
// plan fired. Such a check names the bug, and the failure is shrunk on its
// own, keeping that check. The checks a minimal plan fires beside its own
// are symptoms of the same bug (a tenant leak leaves the other tenant's
// action without rows: 007 with 002), not bugs of their own.
//
// Once shrunk, a new failure is still not reported when it turns out to be
// a reported bug seen another way; its check is then taken as explained
// from then on:
//   - its minimal plan still fires a reported bug's more severe check
//     (symptom);
//   - it needs no race: the calls of its minimal plan's bursts, sent one
//     after another, show only bugs already reported (another tenant's
//     action answered in a burst is not linearizable, 013, where in
//     sequence it is a tenant leak, 007).

// rank is a check's place in checks.Catalogue: lower is more severe.
func rank(id checks.ID) int {
	i := slices.IndexFunc(checks.Catalogue(), func(c checks.Check) bool { return c.ID == id })
	if i < 0 {
		return len(checks.Catalogue())
	}
	return i
}

// known reports whether a check is already a reported bug's, or one of
// its symptoms.
func (r *runner) known(id checks.ID) bool {
	if slices.ContainsFunc(r.explained, func(e checks.ID) bool { return sameBug(e, id) }) {
		return true
	}
	for _, f := range r.bugs {
		for _, v := range f.Violations {
			if sameBug(v.Check, id) {
				return true
			}
		}
	}
	return false
}

// newBug is the check a failing plan's violations count for: the most
// severe one no reported bug stands for; "" when there is none.
func (r *runner) newBug(vs []checks.Violation) checks.ID {
	for _, id := range checks.Fired(vs) {
		if !r.known(id) {
			return id
		}
	}
	return ""
}

// violationOf is the most severe of vs that names bug, if any.
func violationOf(vs []checks.Violation, bug checks.ID) (checks.Violation, bool) {
	i := slices.IndexFunc(vs, func(v checks.Violation) bool { return sameBug(v.Check, bug) })
	if i < 0 {
		return checks.Violation{}, false
	}
	return vs[i], true
}

// hunt is the shrinking of one bug: its smallest failing plan so far, and
// the budget: ShrinkTime from when the bug was found, rapid's part ending
// half way.
type hunt struct {
	best              *Failure
	shrinkBy, rapidBy time.Time
	// cut says the budget cut an execution short; logs are what rapid
	// said while it shrank.
	cut  bool
	logs []string
}

// hunt shrinks the failing plan a found, which counts for bug, and adds
// it to the run's bugs.
func (r *runner) hunt(ctx context.Context, a attempt, bug checks.ID) {
	now := time.Now()
	f := &Failure{Check: bug, Plan: a.plan, History: a.trial.History, Violations: a.trial.Violations, Faults: a.trial.Faults,
		Original: a.plan, PlanSeed: a.seed, Plans: a.index + 1, Detect: now.Sub(r.t0)}
	h := &hunt{best: f, shrinkBy: now.Add(r.cfg.ShrinkTime), rapidBy: now.Add(r.cfg.ShrinkTime / 2)}
	r.current = h
	r.progress("shrink")
	r.shrinkRapid(ctx, h, a.seed)
	if r.stop == nil {
		h.best = r.shrink(ctx, h, h.best)
	}
	r.current = nil
	best := h.best
	best.Original, best.PlanSeed, best.Plans, best.Detect = a.plan, a.seed, a.index+1, f.Detect
	best.Shrink = time.Since(now)
	// rapid ends by running the minimal plan once more; when that run did
	// not fail the same way, the target is not deterministic here. (Not
	// when the budget cut that run short.)
	best.Flaky = !h.cut && slices.ContainsFunc(h.logs, func(l string) bool { return strings.Contains(l, "[rapid] flaky test") })
	if r.symptom(best) || r.stop == nil && ctx.Err() == nil && r.explainedInSequence(ctx, h, best.Plan) {
		r.explained = append(r.explained, best.Check)
	} else {
		r.bugs = append(r.bugs, best)
	}
	r.progress("search")
}

// symptom reports whether a shrunk failure's minimal plan still fires a
// reported bug's check that outranks its own: the check it is named by is
// then a symptom of that bug, as the catalogue ranks them (two concurrent
// calls with different payloads both accepted, 004, by a service whose
// race lets duplicates through, 001: the duplicate row is the harm).
func (r *runner) symptom(f *Failure) bool {
	return slices.ContainsFunc(checks.Fired(f.Violations), func(id checks.ID) bool { return rank(id) < rank(f.Check) && r.known(id) })
}

// explainedInSequence reports whether plan, its bursts sent one call after
// another, shows bugs already reported and no other.
func (r *runner) explainedInSequence(ctx context.Context, h *hunt, plan model.Plan) bool {
	seq := inSequence(plan)
	if seq.String() == plan.String() {
		return false
	}
	// A little time past the shrink budget: the answer decides whether
	// a bug is reported at all.
	runCtx, cancel := context.WithDeadline(ctx, h.shrinkBy.Add(r.cfg.ShrinkTime/10))
	defer cancel()
	for range shrinkTries {
		vs, _, _, err := r.once(runCtx, seq)
		if err != nil {
			// Out of time, or the run cannot go on: the failure stands.
			if ctx.Err() != nil || runCtx.Err() == nil {
				r.stop = cmp.Or(r.stop, err)
			}
			return false
		}
		if len(vs) > 0 {
			return r.newBug(vs) == ""
		}
	}
	return false
}

// inSequence is plan with every burst's calls sent one after another;
// steps without calls (a restart) stay as they are.
func inSequence(plan model.Plan) model.Plan {
	var q model.Plan
	for _, s := range plan.Steps {
		if len(s.Calls) == 0 {
			q.Steps = append(q.Steps, s)
		}
		for _, c := range s.Calls {
			q.Steps = append(q.Steps, model.Step{Kind: model.StepCall, Calls: []model.Call{c}})
		}
	}
	return q
}

// shrinkRapid has rapid shrink the hunted failure, drawn from seed: a
// rapid.Check of one case whose seed is the plan's starts from that plan.
func (r *runner) shrinkRapid(ctx context.Context, h *hunt, seed uint64) {
	if err := setRapidFlags(1, seed, r.cfg.ShrinkTime); err != nil {
		r.stop = err
		return
	}
	var rt tb
	rapid.Check(&rt, func(t *rapid.T) { r.property(ctx, t, h) })
	h.logs = rt.logs
}

// record keeps a smaller plan that fails with the hunted bug's message:
// rapid's last failing run of the property is the minimal plan it shrank
// to, and it keeps a smaller plan only when it fails with the same message.
func (h *hunt) record(plan model.Plan, hist model.History, faults []model.FaultEvent, vs []checks.Violation, v checks.Violation) {
	if old, _ := violationOf(h.best.Violations, h.best.Check); v.Message == old.Message {
		h.best = &Failure{Check: h.best.Check, Plan: plan, History: hist, Faults: faults, Violations: vs}
	}
}
