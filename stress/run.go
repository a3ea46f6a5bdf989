package stress

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/model"
)

// Failure is a failing plan, shrunk, with what it did and what it broke.
type Failure struct {
	Plan       model.Plan         `json:"plan"`
	History    model.History      `json:"history"`
	Violations []checks.Violation `json:"violations"`
	// Original is the first failing plan found, before shrinking.
	Original model.Plan `json:"original"`
}

// Checks lists the checks the failure fired, primary first.
func (f *Failure) Checks() []checks.ID { return checks.Fired(f.Violations) }

// Result is what a run found.
type Result struct {
	Verdict checks.Verdict `json:"verdict"`
	// Target is where the calls went: the target's URL, or the addresses
	// of the replicas the run started.
	Target string `json:"target"`
	Seed   uint64 `json:"seed"`
	// Plans counts the plans tried until the first failure (or all of them).
	Plans int `json:"plans"`
	// Executions counts every plan executed, shrinking included.
	Executions int      `json:"executions"`
	Failure    *Failure `json:"failure,omitempty"`
	// Detect is the time to the first failing plan; Total includes shrinking.
	Detect time.Duration `json:"detect_ns"`
	Total  time.Duration `json:"total_ns"`
	// Outside lists changes to rows outside the run's namespace (IDEM-009):
	// no plan explains them, so none is shrunk.
	Outside []checks.Violation `json:"outside,omitempty"`
	// Unfired counts the cases whose planned faults did not all fire.
	Unfired int `json:"unfired,omitempty"`
	// Flaky says the minimal plan did not fail again the same way when rerun.
	Flaky bool `json:"flaky,omitempty"`
	// Notes say where reading the effect tables cost more than the plans
	// wrote (a table scanned for every plan, and why), and what the check
	// for changes outside the namespace left out (observe.Observer.Notes).
	Notes []string `json:"notes,omitempty"`
	// Err says why a run is inconclusive, or why a failure may not be minimal.
	Err error `json:"-"`
}

// runner is the state of one Run. The search's workers only execute
// plans (try); everything else here is touched by the run's own goroutine.
type runner struct {
	cfg     Config
	session *Session
	seed    uint64
	// unfired counts the cases whose planned faults did not all fire.
	unfired int
	// stalls counts the bursts run under the db-stall nemesis, held the
	// requests it saw waiting on its lock: a nemesis that never held one
	// back tested nothing.
	stalls, held int
	// ids says whether any ok answer of the run carried an ID, and
	// noID is the first 2xx answer without one: when no answer ever had
	// an ID, the contract's pointer is wrong, not the service.
	ids  bool
	noID *model.Op
	// baseOK says a call with the base payload was answered ok, and refused
	// is the first call with another variant that got a 4xx anyway: then
	// the variant, not the service, is what is wrong (payload_rules).
	baseOK  bool
	refused *model.Op
	// shrinkBy ends shrinking: ShrinkTime after the first failure; rapid's
	// part ends by rapidBy, half way. cut says a run was cut short.
	shrinkBy, rapidBy time.Time
	cut               bool
	t0                time.Time
	run               string
	cases             atomic.Int64
	plans             int
	detect            time.Duration
	first             *model.Plan
	last              *Failure
	notes             []string
	stop              error // sticky: infrastructure failure or interruption
	// logs are what rapid said while it shrank.
	logs []string
}

// Run tries cfg.Plans random plans against the target, cfg.Workers at once.
// On the first failing plan it shrinks it, with rapid and then with
// idemstress's own pass, to a minimal one. It returns an error only for a
// configuration that cannot run at all; a failure of the target or the
// database during the run gives an inconclusive result with Err set.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	session, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer session.Close()
	cfg = session.cfg
	seed := cfg.Seed
	if seed == 0 {
		seed = randomSeed()
	}
	rapidMu.Lock()
	defer rapidMu.Unlock()
	r := &runner{cfg: cfg, session: session, seed: seed, t0: time.Now(), run: fmt.Sprintf("is%08x", uint32(seed^randomSeed()))}
	runPrefix := model.Namespace(r.run + "-")
	before, err := session.observer.Baseline(ctx, runPrefix)
	if err != nil {
		return nil, err
	}
	r.search(ctx)

	if !r.ids && r.noID != nil && r.stop == nil {
		return nil, r.idNowhere()
	}
	if r.last != nil && r.last.Violations[0].Check == checks.WrongStatus && r.refused != nil && r.baseOK {
		return nil, r.variantRefused()
	}
	res := &Result{Target: session.Where(), Seed: seed, Plans: r.plans, Executions: int(r.cases.Load()), Total: time.Since(r.t0)}
	afterCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if after, err := session.observer.Baseline(afterCtx, runPrefix); err != nil {
		r.stop = cmp.Or(r.stop, fmt.Errorf("%w: %w", errInfrastructure, err))
	} else {
		res.Outside = checks.Outside(before, after)
	}
	res.Notes = append(r.notes, session.observer.Notes()...)
	for _, n := range res.Notes {
		fmt.Fprintln(cfg.Log, "idemstress: note:", n)
	}
	switch {
	case r.last != nil:
		// A failure found stays found even if the run stopped while
		// shrinking it; Err then says the plan may not be minimal.
		res.Verdict, res.Failure, res.Detect, res.Err = checks.Fail, r.last, r.detect, r.stop
		res.Failure.Original = *r.first
		// rapid ends by running the minimal plan once more; when that run
		// did not fail the same way, the target is not deterministic here.
		// (Not when the budget cut that run short.)
		res.Flaky = !r.cut && slices.ContainsFunc(r.logs, func(l string) bool { return strings.Contains(l, "[rapid] flaky test") })
	case r.stop != nil:
		res.Verdict, res.Err = checks.Inconclusive, r.stop
	case len(res.Outside) > 0:
		res.Verdict = checks.Fail
	case r.stalls > 0 && r.held == 0:
		// Every burst was answered without one request waiting on the
		// lock: the service never writes that table inside a request.
		res.Verdict = checks.Inconclusive
		res.Err = fmt.Errorf("the db-stall nemesis on %s never held back a request in %d burst(s): nothing the service does waits on that table; stall a table it writes while it handles a call (an effect table, or its own idempotency-key table)",
			cfg.DBStall, r.stalls)
	case r.unfired > 0:
		// A case whose nemesis did not fire proved nothing: never a pass.
		res.Verdict = checks.Inconclusive
		res.Err = fmt.Errorf("%d of %d cases: the db-stall nemesis did not fire (requests neither blocked on %s nor answered within its wait)",
			r.unfired, res.Executions, cfg.DBStall)
	default:
		res.Verdict = checks.Pass
	}
	res.Unfired = r.unfired
	return res, nil
}

// search runs the plans of the run, Workers at once, in plan order, until
// one fails; rapid and then idemstress's own pass shrink it.
func (r *runner) search(ctx context.Context) {
	w := r.workers()
	for from := 0; from < r.cfg.Plans && r.stop == nil && r.last == nil; from += w {
		for _, a := range r.batch(ctx, from, min(w, r.cfg.Plans-from)) {
			if a.err != nil {
				r.stop = cmp.Or(r.stop, a.err)
				break
			}
			r.plans++
			r.account(a.trial)
			if len(a.trial.Violations) > 0 {
				r.record(a.plan, a.trial.History, a.trial.Violations)
				r.shrinkRapid(ctx, a.seed)
				if r.stop == nil {
					r.last = r.shrink(ctx, r.last)
				}
				break
			}
		}
	}
}

// shrinkRapid has rapid shrink the failing plan drawn from seed: a
// rapid.Check of one case whose seed is the plan's starts from that plan.
func (r *runner) shrinkRapid(ctx context.Context, seed uint64) {
	if err := setRapidFlags(1, seed, r.cfg.ShrinkTime); err != nil {
		r.stop = err
		return
	}
	var rt tb
	rapid.Check(&rt, func(t *rapid.T) { r.property(ctx, t) })
	r.logs = rt.logs
}

// property is one rapid test case while rapid shrinks: draw a plan, run it
// in a fresh namespace, judge it. Every violation fails from the one
// Fatalf line below with the primary violation's fixed message, so rapid
// sees the same failure while it shrinks.
func (r *runner) property(ctx context.Context, t *rapid.T) {
	plan := gen.Plan(r.cfg.World).Draw(t, "plan")
	var vs []checks.Violation
	var h model.History
	if r.stop == nil {
		runCtx, cancel := context.WithDeadline(ctx, r.rapidBy)
		defer cancel()
		if runCtx.Err() != nil && ctx.Err() == nil {
			// The shrink budget is spent: rapid's candidates pass at once,
			// so its shrinking ends, and the last failure found stands.
			r.cut = true
			return
		}
		var err error
		vs, h, err = r.once(runCtx, plan)
		if err != nil && ctx.Err() == nil && runCtx.Err() != nil {
			r.cut = true // cut mid-plan by the budget: proves nothing
			return
		}
		r.stop = err
	}
	if r.stop != nil {
		// Once the run cannot go on, every case fails here, quickly, so
		// rapid's shrinking ends at once.
		t.Fatalf("run stopped")
	}
	if len(vs) == 0 {
		return
	}
	r.record(plan, h, vs)
	// Each check fails from a line of its own (see checks.Catalogue).
	vs[0].Fail(t)
}

// try executes and judges one plan in a namespace of its own. Workers
// call it at once; it touches nothing of the runner's but its counter.
func (r *runner) try(ctx context.Context, plan model.Plan) (Trial, error) {
	ns := model.Namespace(fmt.Sprintf("%s-%d-", r.run, r.cases.Add(1)))
	return r.session.Try(ctx, ns, plan, r.t0)
}

// once executes, judges and accounts one plan (while shrinking).
func (r *runner) once(ctx context.Context, plan model.Plan) ([]checks.Violation, model.History, error) {
	tr, err := r.try(ctx, plan)
	if err != nil {
		return nil, tr.History, err
	}
	r.account(tr)
	return tr.Violations, tr.History, nil
}

// account adds what a trial says about the run as a whole: faults that
// did not fire, IDs, refused variants.
func (r *runner) account(tr Trial) {
	if tr.Faults.Fired < tr.Faults.Planned {
		r.unfired++
	}
	r.stalls += tr.Faults.Planned
	r.held += tr.Faults.Held
	for i, op := range tr.History {
		switch {
		case op.Out.Kind == model.OK:
			r.ids = true
			r.baseOK = r.baseOK || op.Call.Variant == 0
		case r.noID == nil && op.Out.Status >= 200 && op.Out.Status < 300:
			r.noID = &tr.History[i]
		case r.refused == nil && op.Call.Variant > 0 && !op.Call.NoKey && op.Out.Status >= 400 && op.Out.Status < 500 &&
			op.Out.Kind != model.Conflict && op.Out.Kind != model.InFlight:
			r.refused = &tr.History[i]
		}
	}
}

// note says something about the run once, on the log and in the result.
func (r *runner) note(n string) {
	if !slices.Contains(r.notes, n) {
		r.notes = append(r.notes, n)
	}
}

// idNowhere is the contract error of a run in which no 2xx answer had an ID
// where the contract says the ID is.
func (r *runner) idNowhere() error {
	op := r.noID
	where := fmt.Sprintf("target.id %q: no 2xx answer of the run had a resource ID at that JSON pointer", r.cfg.HTTP.ID)
	if r.cfg.HTTP.ID == client.IDFromLocation {
		where = "target.id \"location\": no 2xx answer of the run had a Location header with a last path segment"
	}
	return fmt.Errorf("%w: %s; the first was %d with body %q (call %s)", ErrContract, where, op.Out.Status, model.Excerpt(op.Out.Body, 200), op.Call)
}

// variantRefused is the contract error of a run whose failure comes from
// the service refusing a payload variant that the base payload's answers
// show it would accept but for one field: the field's rule is missing.
func (r *runner) variantRefused() error {
	op := r.refused
	c := r.cfg.Contract
	ptr := c.ChangedField(op.Call.Variant)
	from, _ := model.Pointer(c.Render("", 0, 0), ptr)
	to, _ := model.Pointer(c.Render("", op.Call.Variant, 0), ptr)
	return fmt.Errorf("%w: payload_rules: the service refused variant %d of field %s (%q instead of %q): it answered %d %s; "+
		"give the field its rule under payload_rules (fixed, enum: [...], int: {min, max}, number: {min, max} or max_len) so that variants stay valid",
		ErrContract, op.Call.Variant, ptr, to, from, op.Out.Status, op.Out.Body)
}

// record keeps the first failing plan, and the last: rapid's last run of
// the property is the minimal plan it shrank to.
func (r *runner) record(plan model.Plan, h model.History, vs []checks.Violation) {
	if r.first == nil {
		r.first = &plan
		r.detect = time.Since(r.t0)
		r.shrinkBy = time.Now().Add(r.cfg.ShrinkTime)
		r.rapidBy = time.Now().Add(r.cfg.ShrinkTime / 2)
	}
	// Candidates that fail another way are ones rapid rejects: it keeps a
	// smaller plan only when it fails with the same message.
	if r.last == nil || vs[0].Message == r.last.Violations[0].Message {
		r.last = &Failure{Plan: plan, History: h, Violations: vs}
	}
}

func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}
