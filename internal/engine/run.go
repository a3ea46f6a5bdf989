package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/interp"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/points"
	"github.com/idemstress/idemstress/internal/usable"
)

// runner is the state of one Run. The search's workers only execute
// plans (try); everything else here is touched by the run's own goroutine.
type runner struct {
	cfg Settings
	// trials executes and judges the plans of the search and the
	// shrinker: the only way they reach the target and the database.
	trials trier
	// session is what Run was given, for what it checks around the
	// search; nil in the engine's tests, which script trials alone.
	session Session
	seed    uint64
	// deals are the world's faults, dealt to the first plans (planAt).
	deals []gen.Deal
	// faults counts the fault events of every execution by kind, and
	// unfiredExecs the executions where one of them did not fire.
	faults       map[model.Fault]faultkind.FaultCount
	coverage     coverage.Coverage
	unfiredExecs int
	// unfiredWhy is, by kind, why a fault first did not fire.
	unfiredWhy map[model.Fault]string
	// held counts the requests the db-stall nemesis saw waiting on its
	// lock: a nemesis that never held one back tested nothing.
	held int
	// clues are what the answers say about whether the request is
	// usable at all (usable.Clues).
	clues usable.Clues
	t0    time.Time
	run   string
	// executions counts every plan executed, shrinking included
	// (Result.Executions); each takes the next namespace.
	executions atomic.Int64
	// plans counts the search's plans until the first failure, searched
	// all of them; calls counts the calls of every execution (faults
	// counts their faults).
	plans, searched, calls int
	// bugs are the failures found, each shrunk; current is the one being
	// shrunk.
	bugs    []*findings.Failure
	current *shrinking
	// reported are the identities every reported bug's minimal plan
	// fired; explained those of failures found to be a reported bug seen
	// another way (fateOf), and attributed counts the failing plans of the
	// search that showed only such bugs.
	reported, explained []bugid.ID
	attributed          int
	notes               []string
	stop                error // sticky: infrastructure failure or interruption
	// otherWriter says why the check for stray writes could not judge:
	// another run wrote beside this one (see otherRuns).
	otherWriter string
}

// Run tries cfg.Plans random plans against the target session reaches,
// cfg.Workers at once, and reports every distinct bug they show: each
// failing plan that counts for a new bug is shrunk, with rapid and then
// with idemstress's own pass, to a minimal one, and the search goes on.
// cfg is a run's as stress.Open leaves it (defaults filled in, World
// narrowed by the contract). A failure of the target or the database
// during the run gives an inconclusive result with Err set. When ctx
// ends, the result holds what was found until then (Interrupted). A
// contract error that only the run's answers show (a generated input
// refused, no ID where the contract says) is returned as the error; when
// the run had found bugs before it, the result is returned beside it, not
// nil, holding them, with Contract set to the same error.
func Run(ctx context.Context, cfg Settings, session Session) (*findings.Result, error) {
	r := runOn(cfg, session)
	runPrefix := model.Namespace(cmp.Or(r.cfg.Namespace, r.run+"-"))
	before, err := session.Baseline(ctx, runPrefix)
	if err != nil {
		return nil, err
	}
	others, err := r.otherRunsBaseline(ctx)
	if err != nil {
		return nil, err
	}
	r.learnPoints(ctx)
	r.search(ctx)
	r.dealer().Tried()
	findings.Order(r.bugs)

	cerr := r.contractError(ctx)
	if cerr != nil && len(r.bugs) == 0 {
		return nil, cerr
	}
	res := r.result(ctx, cerr)
	r.checkOutside(ctx, res, runPrefix, before, others)
	r.finish(res)
	return res, cerr
}

// runOn is the runner of a run of cfg on session, with the notes of what
// the contract leaves out of it.
func runOn(cfg Settings, session Session) *runner {
	seed := cfg.Seed
	if seed == 0 {
		seed = randomSeed()
	}
	t0 := time.Now()
	r := newRunner(cfg, seed, t0, sessionTrier{session, t0})
	r.session = session
	if n := cfg.QueryAfterCrashTable(); n != "" {
		r.note(n)
	}
	for _, n := range usable.IdentifierNotes(cfg.Contract, cfg.World) {
		r.note(n)
	}
	if cfg.HTTP.KeyInPath() {
		// stress's worldOf drew no call without its key.
		r.note("no call was sent without its key: the key travels in target.url's path, where a call without one cannot be sent (the keyless transition is not exercised)")
	}
	return r
}

// result is what the search found, before the check for changes outside
// the run and the final verdict.
func (r *runner) result(ctx context.Context, cerr error) *findings.Result {
	res := &findings.Result{Target: r.session.Where(), Seed: r.seed, Plans: r.plans, Searched: r.searched, Executions: int(r.executions.Load()),
		Calls: r.calls, FaultsFired: faultkind.FaultsFired(r.faults), Failures: r.bugs, Attributed: r.attributed, Interrupted: ctx.Err() != nil,
		Contract: cerr}
	for _, b := range r.explained {
		if !slices.Contains(res.AttributedChecks, b.Check) {
			res.AttributedChecks = append(res.AttributedChecks, b.Check)
		}
	}
	if r.attributed > 0 {
		r.note(fmt.Sprintf("%d failing plan(s) showed only bugs already reported, and were attributed to them", r.attributed))
	}
	return res
}

// checkOutside reads the tables again after the search and sets
// res.Outside to what changed outside the run's namespace (IDEM-009)
// since before, unless another run (others) explains it.
func (r *runner) checkOutside(ctx context.Context, res *findings.Result, runPrefix model.Namespace, before, others model.Baseline) {
	if ctx.Err() != nil {
		// Interrupted: the user wants the report now, not after reading
		// every table again.
		r.note("the check for changes outside the run's namespace (IDEM-009) was skipped: the run was interrupted")
		return
	}
	afterCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	after, err := r.session.Baseline(afterCtx, runPrefix)
	if err != nil {
		r.stop = cmp.Or(r.stop, fmt.Errorf("%w: %w", errInfrastructure, err))
		return
	}
	res.Outside = checks.Outside(before, after)
	if len(res.Outside) > 0 {
		if err := r.otherRuns(afterCtx, res, others); err != nil {
			r.stop = cmp.Or(r.stop, fmt.Errorf("%w: %w", errInfrastructure, err))
		}
	}
}

// finish gives res its notes and its final verdict, a function of the
// run's tallies (verdict).
func (r *runner) finish(res *findings.Result) {
	res.Total = time.Since(r.t0)
	res.Notes = append(r.notes, r.session.Notes()...)
	for _, n := range res.Notes {
		fmt.Fprintln(r.cfg.Log, "idemstress: note:", n)
	}
	res.Verdict, res.Err = verdict(tallies{bugs: len(r.bugs), stop: r.stop, outside: len(res.Outside), otherWriter: r.otherWriter,
		stallTable: r.cfg.DBStall, stallPlanned: r.faults[model.FaultDBStall].Planned, stallHeld: r.held,
		searched: r.searched, duration: r.cfg.Duration, unfired: r.unfiredExecs, executions: res.Executions,
		unfiredKinds: unfiredKinds(r.faults, r.unfiredWhy)})
	if len(r.bugs) > 0 {
		res.Detect = slices.MinFunc(r.bugs, func(a, b *findings.Failure) int { return cmp.Compare(a.Detect, b.Detect) }).Detect
		res.Flaky = slices.ContainsFunc(r.bugs, func(f *findings.Failure) bool { return f.Flaky })
	}
	res.Unfired, res.Faults, res.Coverage = r.unfiredExecs, r.faults, r.coverage
}

// contractError is the mistake in the contract that the run's answers
// show, if any: no ID where the contract says, no usable answer, or a
// generated input refused although the base payload was taken.
func (r *runner) contractError(ctx context.Context) error {
	p, note := r.clues.Problem(len(r.bugs), r.stop != nil, ctx.Err() != nil)
	probe := usable.Probe{Contract: r.cfg.Contract, HTTP: r.cfg.HTTP, Clues: r.clues, Run: r.run, Bugs: len(r.bugs),
		Try: func(ctx context.Context, plan model.Plan) (model.History, error) {
			tr, err := r.try(ctx, plan)
			return tr.History, err
		}}
	if r.session != nil {
		probe.TryWith = r.session.TryWith
	}
	if note {
		r.note(probe.UnusableNote())
	}
	return probe.Error(ctx, p)
}

// A trier executes and judges one plan in a namespace of its own: the
// one-method seam between the search and shrinker above it and the
// target, the service's processes and the database below. A run's trier is
// its Session; the engine's tests script one, so that which failure is a
// new bug and when a shrink candidate fails again are tested without a
// service or PostgreSQL.
type trier interface {
	Try(ctx context.Context, ns model.Namespace, plan model.Plan) (Trial, error)
}

// sessionTrier tries plans on a Session, on the clock of a run begun at t0.
type sessionTrier struct {
	s  Session
	t0 time.Time
}

func (s sessionTrier) Try(ctx context.Context, ns model.Namespace, plan model.Plan) (Trial, error) {
	return s.s.Try(ctx, ns, plan, s.t0)
}

// newRunner is the state of a run with seed begun at t0, trying its plans
// with trials.
func newRunner(cfg Settings, seed uint64, t0 time.Time, trials trier) *runner {
	return &runner{cfg: cfg, trials: trials, seed: seed, deals: gen.Deals(cfg.World), t0: t0, faults: map[model.Fault]faultkind.FaultCount{}, coverage: points.StartCoverage(cfg.Faults, cfg.DBStall, cfg.World),
		unfiredWhy: map[model.Fault]string{}, run: runName(cfg, seed)}
}

// runName is the run's part of every namespace: the configured namespace
// (or "is") and eight random hex digits. Under a UUID key or tenant, where
// each f of them takes two of the UUID's 30 hex digits, it is drawn again
// until a million executions fit.
func runName(cfg Settings, seed uint64) string {
	run := fmt.Sprintf("%s%08x", cmp.Or(cfg.Namespace, "is"), uint32(seed^randomSeed()))
	for range 100 {
		if identifiers.NamespaceFits(cfg.Contract, model.Namespace(run+"-1000000-")) {
			break
		}
		run = fmt.Sprintf("%s%08x", cmp.Or(cfg.Namespace, "is"), uint32(seed^randomSeed()))
	}
	return run
}

// graceAfter is how long past the run's duration a plan started before it
// may go on: a tenth of the duration, 1s to 30s. A plan still running then
// is cut and not counted, so that many workers do not overrun --duration.
func graceAfter(d time.Duration) time.Duration {
	return min(max(d/10, time.Second), 30*time.Second)
}

// search runs the plans of the run, Workers at once, and takes their
// verdicts in plan order: each plan that counts for a new bug is shrunk
// (shrunk) before the next plan's verdict is taken, so the bugs found are
// the same whatever the number of workers. It ends when the plans or the
// duration are spent, MaxBugs are found, the run stops, or ctx ends.
func (r *runner) search(ctx context.Context) {
	w := r.workers()
	var end time.Time
	planCtx := ctx
	if r.cfg.Duration > 0 {
		end = r.t0.Add(r.cfg.Duration)
		var cancel context.CancelFunc
		planCtx, cancel = context.WithDeadline(ctx, end.Add(graceAfter(r.cfg.Duration)))
		defer cancel()
	}
	r.progress("search")
	enough := func() bool { return r.cfg.MaxBugs > 0 && len(r.bugs) >= r.cfg.MaxBugs }
	q := &window{r: r, ctx: planCtx, w: w}
	// Every plan started is waited for: no worker outlives the search.
	defer q.quiet()
	for {
		if r.stop != nil || ctx.Err() != nil || (!end.IsZero() && !time.Now().Before(end)) || enough() {
			q.close()
		}
		q.fill(r.cfg.Plans)
		a, ok := q.take()
		if !ok {
			return
		}
		if r.stop != nil || enough() {
			continue // started before the search ended: not counted
		}
		if a.err != nil && ctx.Err() == nil && planCtx.Err() != nil {
			continue // cut past the duration: proves nothing, not counted
		}
		if a.err != nil {
			r.stop = a.err
			continue
		}
		r.judge(ctx, q, a)
		r.progress("search")
	}
}

// judge takes in one plan of the search that ran to its end: counted, its
// faults and clues tallied, and a failure that shows a new bug shrunk
// (the window quieted first: shrinking runs alone) or attributed.
func (r *runner) judge(ctx context.Context, q *window, a attempt) {
	r.searched++
	if len(r.bugs) == 0 {
		r.plans++
	}
	r.account(a.trial)
	if r.clues.RefusedUnanswered() {
		// Refused before any ok answer: a failure may be the request's,
		// not the service's. Nothing is shrunk, and a run whose first
		// plans were all refused ends in a contract error. (A run whose
		// calls only went unanswered, or 5xx, is shrunk as ever: a bug
		// found is never dropped.)
		if r.searched >= min(usable.UnusableAfter, r.cfg.Plans) {
			q.close()
		}
		return
	}
	if len(a.trial.Violations) == 0 {
		return
	}
	if bug, ok := bugid.NewBug(r.idsOf(a.plan, a.trial.History, a.trial.Violations), r.known); ok {
		q.quiet()
		r.shrinkBug(ctx, a, bug)
	} else {
		r.attributed++
	}
}

// property is one rapid test case while rapid shrinks the bug being shrunk: draw
// a plan, run it in a fresh namespace, judge it. A plan that shows the bug
// fails from its check's own line with the check's fixed message, so
// rapid sees the same failure while it shrinks; a plan that shows only
// other bugs passes.
func (r *runner) property(ctx context.Context, t *rapid.T, h *shrinking) {
	if r.stop == nil && ctx.Err() == nil && !time.Now().Before(h.rapidBy) {
		// The budget is spent: this candidate passes before it is
		// drawn, so rapid ends its shrinking with the round under way,
		// and the last failure found stands.
		h.cut = true
		return
	}
	plan := gen.Plan(h.world).Draw(t, "plan")
	var vs []checks.Violation
	var hist model.History
	if r.stop == nil {
		runCtx, cancel := context.WithDeadline(ctx, h.rapidBy)
		defer cancel()
		var err error
		vs, hist, err = r.rapidOnce(runCtx, h, plan)
		if err != nil && ctx.Err() == nil && runCtx.Err() != nil {
			h.cut = true // cut mid-plan by the budget: proves nothing
			return
		}
		r.stop = err
	}
	if r.stop != nil {
		// Once the run cannot go on, every case fails here, quickly, so
		// rapid's shrinking ends at once.
		t.Fatalf("run stopped")
	}
	v, ok := bugid.ViolationOf(vs, h.best.Check)
	if !ok {
		return
	}
	h.record(plan, hist, vs, v)
	// Each check fails from a line of its own (see checks.Catalogue).
	v.Fail(t)
}

// try executes and judges one plan in a namespace of its own. Workers
// call it at once; it touches nothing of the runner's but its counter.
func (r *runner) try(ctx context.Context, plan model.Plan) (Trial, error) {
	ns := model.Namespace(fmt.Sprintf("%s-%d-", r.run, r.executions.Add(1)))
	return r.trials.Try(ctx, ns, plan)
}

// once executes, judges and accounts one plan (while shrinking).
func (r *runner) once(ctx context.Context, plan model.Plan) ([]checks.Violation, model.History, error) {
	tr, err := r.try(ctx, plan)
	if err != nil {
		return nil, tr.History, err
	}
	r.account(tr)
	r.progress("shrink")
	return tr.Violations, tr.History, nil
}

// account adds what a trial says about the run as a whole: the faults by
// kind and whether they all fired, IDs, refused variants.
func (r *runner) account(tr Trial) {
	r.calls += len(tr.History.Ops)
	faultkind.Tally(r.faults, tr.History.Faults)
	r.coverage.Add(tr.Coverage)
	if !faultkind.AllFired(tr.History.Faults) {
		r.unfiredExecs++
	}
	for _, ev := range tr.History.Faults {
		if ev.Kind == model.FaultDBStall {
			r.held += ev.Held
		}
		if !ev.Fired && ev.Note != "" && r.unfiredWhy[ev.Kind] == "" {
			r.unfiredWhy[ev.Kind] = ev.Note
		}
	}
	for _, n := range usable.BrokenAccepted(r.cfg.Contract, tr.History) {
		r.note(n)
	}
	for _, n := range tr.Notes {
		r.note(n)
	}
	r.clues = r.clues.Add(r.cfg.Contract, tr.NS, tr.History)
}

// errInfrastructure marks a failure of the run itself (target or database
// not there, a target that panicked), as opposed to a violation found.
var errInfrastructure = interp.ErrInfrastructure

func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// unfiredKinds says which kinds of fault did not always fire, each with
// why, as the first case where it did not fire said (why, by kind).
func unfiredKinds(counts map[model.Fault]faultkind.FaultCount, why map[model.Fault]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		c := counts[k]
		if c.Fired == c.Planned {
			continue
		}
		part := fmt.Sprintf("%s fired %d of %d", k, c.Fired, c.Planned)
		if why[k] != "" {
			part += ": " + why[k]
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}
