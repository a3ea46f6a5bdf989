package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/findings"
	"github.com/idemstress/idemstress/internal/model"
)

// The engine's tests: the search, bug identity and the shrinker driven
// through the trier seam by a scripted service, with no target and no
// PostgreSQL, in milliseconds. A scripted service answers every call ok
// and reports what its rule says the plan shows; the tests then read the
// bugs the run reported, their minimal plans and what was attributed.

// rule is a scripted service's mistake: the violations a plan shows.
type rule func(c model.Contract, plan model.Plan) []checks.Violation

// scripted is a trier that executes nothing: every call is answered ok
// with an ID (so the run sees usable answers), and the plan's violations
// are its rules'. slow, when set, is how long every try after the first
// takes (a plan that hangs until the call timeout).
type scripted struct {
	rules []rule
	slow  time.Duration
	// slowPass, when set, is how long a try that shows no violation
	// takes, and one that shows any takes no time: a shrink's budget
	// (ShrinkTime, or shrinkCandidates times the failing plan's time) is
	// then over before a candidate that passes has run, so every shrink
	// is cut, however loaded the machine.
	slowPass time.Duration
	mu       sync.Mutex
	tries    int
}

func (s *scripted) Try(ctx context.Context, ns model.Namespace, plan model.Plan) (Trial, error) {
	s.mu.Lock()
	s.tries++
	n := s.tries
	s.mu.Unlock()
	if s.slow > 0 && n > 1 {
		select {
		case <-time.After(s.slow):
		case <-ctx.Done():
			return Trial{NS: ns}, ctx.Err()
		}
	}
	tr := Trial{NS: ns}
	for i, st := range plan.Steps {
		for _, c := range st.Calls {
			tr.History.Ops = append(tr.History.Ops, model.Op{Call: c, Step: i, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "1"}})
		}
	}
	c := model.DefaultContract()
	for _, r := range s.rules {
		tr.Violations = append(tr.Violations, r(c, plan)...)
	}
	checks.Sort(tr.Violations)
	if s.slowPass > 0 && len(tr.Violations) == 0 {
		select {
		case <-time.After(s.slowPass):
		case <-ctx.Done():
			return Trial{NS: ns}, ctx.Err()
		}
	}
	return tr, nil
}

// A mistake's message, as the checks word it: the same every time.
const (
	ticketDup = "IDEM-001 duplicate effect: an action has more than 1 row(s) in tickets"
	outboxDup = "IDEM-001 duplicate effect: an action has more than 1 row(s) in notification_outbox"
	changed   = "IDEM-004 changed payload accepted: a call with another payload was answered ok"
)

// raceDuplicates: two calls of one action in one burst write two tickets
// (check-then-insert). With changedToo, two of them with different
// payloads are both answered ok as well (the race accepts either).
func raceDuplicates(changedToo bool) rule {
	return func(c model.Contract, plan model.Plan) []checks.Violation {
		var vs []checks.Violation
		for _, st := range plan.Steps {
			if st.Kind != model.StepBurst {
				continue
			}
			variants := map[model.Action][]int{}
			for _, call := range st.Calls {
				if !call.NoKey {
					a := c.ActionOf(call)
					variants[a] = append(variants[a], call.Variant)
				}
			}
			for a, vars := range variants {
				if len(vars) < 2 {
					continue
				}
				vs = append(vs, checks.Violation{Check: checks.DuplicateEffect, Message: ticketDup, Action: a})
				if changedToo && slices.Min(vars) != slices.Max(vars) {
					vs = append(vs, checks.Violation{Check: checks.ChangedAccepted, Message: changed, Action: a})
				}
			}
		}
		return vs
	}
}

// outboxOnRetry: an action called in two steps enqueues two notifications.
func outboxOnRetry(c model.Contract, plan model.Plan) []checks.Violation {
	steps := map[model.Action]int{}
	var vs []checks.Violation
	for _, st := range plan.Steps {
		if st.Kind != model.StepCall {
			continue
		}
		for _, call := range st.Calls {
			if call.NoKey {
				continue
			}
			a := c.ActionOf(call)
			if steps[a]++; steps[a] == 2 {
				vs = append(vs, checks.Violation{Check: checks.DuplicateEffect, Message: outboxDup, Action: a})
			}
		}
	}
	return vs
}

// engineConfig is a run over a small world of plain keys, as stress.Open
// would leave it, with bursts of up to four calls.
func engineConfig(plans int) Settings {
	return Settings{
		Spec:       contract.Spec{Contract: model.DefaultContract()},
		World:      gen.World{MaxTenants: 2, MaxKeys: 2, MaxVariants: 2, MaxSteps: 6, MaxBurst: 4},
		Plans:      plans,
		ShrinkTime: 5 * time.Second,
		Workers:    1,
	}
}

// runEngine runs the search over a scripted service and returns the runner.
func runEngine(t *testing.T, cfg Settings, s *scripted, seed uint64) *runner {
	t.Helper()
	r := newRunner(cfg, seed, time.Now(), s)
	r.search(t.Context())
	findings.Order(r.bugs)
	if r.stop != nil {
		t.Fatalf("the run stopped: %v", r.stop)
	}
	return r
}

func callOf(c model.Call) model.Step { return model.Step{Kind: model.StepCall, Calls: []model.Call{c}} }

var (
	a1  = model.Call{Tenant: "A", Key: "k1"}
	a1b = model.Call{Tenant: "A", Key: "k1", Variant: 1}
)

// Which failures a run reports, and the minimal plan each shrinks to, for
// scripted services: every bug once, each with its own check and the
// smallest plan that shows it; a symptom of a reported bug attributed to
// it, never reported again.
func TestEngineBugsAndMinimalPlans(t *testing.T) {
	tests := []struct {
		name  string
		rules []rule
		// want are the reported bugs (Failure.Bug) with their minimal
		// plans, in the order the run reports them.
		want []struct {
			bug  string
			plan model.Plan
		}
		// symptom, when set, is a check whose failure must be
		// attributed to a reported bug as its symptom, never reported.
		symptom checks.ID
	}{
		{
			name:  "a race shrinks to a burst of two equal calls",
			rules: []rule{raceDuplicates(false)},
			want: []struct {
				bug  string
				plan model.Plan
			}{{ticketDup + " in burst", model.Plan{Steps: []model.Step{burstOf(a1, a1)}}}},
		},
		{
			name:  "a retry's duplicate shrinks to two calls in sequence",
			rules: []rule{outboxOnRetry},
			want: []struct {
				bug  string
				plan model.Plan
			}{{outboxDup + " in sequence", model.Plan{Steps: []model.Step{callOf(a1), callOf(a1)}}}},
		},
		{
			name:  "two bugs of one check in one run, told apart by table and transition",
			rules: []rule{raceDuplicates(false), outboxOnRetry},
			want: []struct {
				bug  string
				plan model.Plan
			}{
				{outboxDup + " in sequence", model.Plan{Steps: []model.Step{callOf(a1), callOf(a1)}}},
				{ticketDup + " in burst", model.Plan{Steps: []model.Step{burstOf(a1, a1)}}},
			},
		},
		{
			name:  "a changed payload accepted under the same race is the race's symptom",
			rules: []rule{raceDuplicates(true)},
			want: []struct {
				bug  string
				plan model.Plan
			}{{ticketDup + " in burst", model.Plan{Steps: []model.Step{burstOf(a1, a1)}}}},
			symptom: checks.ChangedAccepted,
		},
		{
			name:  "a correct service: no bug",
			rules: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			r := runEngine(t, engineConfig(200), &scripted{rules: tt.rules}, 1)
			if len(r.bugs) != len(tt.want) {
				var got []string
				for _, b := range r.bugs {
					got = append(got, b.Bug+": "+b.Plan.Compact())
				}
				t.Fatalf("%d bug(s) reported %q, want %d", len(r.bugs), got, len(tt.want))
			}
			for i, w := range tt.want {
				b := r.bugs[i]
				if b.Bug != w.bug {
					t.Errorf("bug %d is %q, want %q", i+1, b.Bug, w.bug)
				}
				if b.Plan.String() != w.plan.String() {
					t.Errorf("bug %d (%s) shrank to %s, want %s", i+1, b.Bug, b.Plan.Compact(), w.plan.Compact())
				}
				if b.NotMinimal {
					t.Errorf("bug %d (%s) is marked not minimal", i+1, b.Bug)
				}
			}
			symptom := slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, "a symptom of the reported") })
			explained := slices.ContainsFunc(r.explained, func(id bugid.ID) bool { return id.Check == tt.symptom })
			if tt.symptom != "" && (!symptom || !explained) {
				t.Errorf("no failure of %s attributed as a symptom (explained %v, notes %q)", tt.symptom, r.explained, r.notes)
			}
			if tt.symptom == "" && symptom {
				t.Errorf("a failure attributed as a symptom where no bug has one: %q", r.notes)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("the scripted run took %s: the engine's tests must stay fast", took)
			}
		})
	}
}

// A bug whose shrinking runs out of budget is reported with the smallest
// plan found so far, marked not minimal: a found bug is never dropped.
func TestEngineCutShrinkIsReported(t *testing.T) {
	cfg := engineConfig(50)
	cfg.ShrinkTime = time.Millisecond
	// The first plan is quick, so the budget fits few of the later ones.
	s := &scripted{rules: []rule{raceDuplicates(false)}, slow: 20 * time.Millisecond}
	r := runEngine(t, cfg, s, 1)
	if len(r.bugs) != 1 {
		t.Fatalf("%d bugs reported, want the one found", len(r.bugs))
	}
	if b := r.bugs[0]; !b.NotMinimal {
		t.Errorf("bug %s shrank to %s within a budget of %s and is not marked not minimal", b.Bug, b.Plan.Compact(), b.Budget)
	}
}

// Issue 16.9: a bug whose shrink was cut is reported with a plan that may
// show other bugs beside it (a 500 and a hang in one big burst); those are
// not its symptoms, as a minimal plan's would be, and the search goes on
// to report them. Before, the hang beside a cut 500 was taken as known and
// never reported.
func TestEngineCutShrinkHidesNoOtherBug(t *testing.T) {
	const (
		status500 = "IDEM-008 wrong status: a 5xx answer"
		hang      = "IDEM-014 no answer: a call with no planned fault got no answer"
	)
	// Two calls of one action in a burst: the loser answers 500 and the
	// other hangs, every time.
	both := func(c model.Contract, plan model.Plan) []checks.Violation {
		var vs []checks.Violation
		for _, st := range plan.Steps {
			if st.Kind != model.StepBurst {
				continue
			}
			n := map[model.Action]int{}
			for _, call := range st.Calls {
				if a := c.ActionOf(call); !call.NoKey {
					if n[a]++; n[a] == 2 {
						vs = append(vs, checks.Violation{Check: checks.WrongStatus, Message: status500, Action: a},
							checks.Violation{Check: checks.NoAnswer, Message: hang, Action: a})
					}
				}
			}
		}
		return vs
	}
	cfg := engineConfig(100)
	cfg.ShrinkTime = time.Millisecond
	// Plans that pass are slow and failing ones quick, so that no shrink
	// can end minimal: a minimal burst shows the hang beside the 500, and
	// then calls it the 500's symptom. (With every try slow, a failing
	// plan that a loaded machine made slower gave its shrink a budget
	// long enough to end minimal, 1 run in 8.)
	r := runEngine(t, cfg, &scripted{rules: []rule{both}, slowPass: 20 * time.Millisecond}, 1)
	var got []checks.ID
	for _, b := range r.bugs {
		got = append(got, b.Check)
		if !b.NotMinimal {
			t.Errorf("%s shrank to %s within a budget of %s: the test needs cut shrinks", b.Bug, b.Plan.Compact(), b.Budget)
		}
	}
	if !slices.Contains(got, checks.WrongStatus) || !slices.Contains(got, checks.NoAnswer) {
		t.Errorf("reported %v; want the 500 and the hang, each shrunk as far as the budget went", got)
	}
}

// The search stops at MaxBugs, and the bugs it reports are the same
// whatever the number of workers.
func TestEngineWorkersFindTheSameBugs(t *testing.T) {
	var plans []string
	for _, w := range []int{1, 3} {
		cfg := engineConfig(200)
		cfg.Workers = w
		cfg.MaxBugs = 1
		r := runEngine(t, cfg, &scripted{rules: []rule{raceDuplicates(false), outboxOnRetry}}, 7)
		if len(r.bugs) != 1 {
			t.Fatalf("workers %d: %d bugs, want 1 (MaxBugs)", w, len(r.bugs))
		}
		plans = append(plans, r.bugs[0].Original.Compact())
	}
	if plans[0] != plans[1] {
		t.Errorf("the first failing plan depends on the workers: %q", plans)
	}
}

// Runs of one process take turns at rapid's flags (rapidMu): a bug found
// while another run's rapid.Check starts waits for its turn, and that
// wait is not its budget. Before, the budget ran from when the bug was found, and a
// test of a binary whose runs go in parallel saw its bug's shrink cut,
// reported not minimal or as another check.
func TestEngineWaitingForRapidIsNotTheBudget(t *testing.T) {
	cfg := engineConfig(20)
	cfg.ShrinkTime = 500 * time.Millisecond
	rapidMu.Lock()
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(4 * cfg.ShrinkTime) // another run's rapid shrinks
		rapidMu.Unlock()
	}()
	t.Cleanup(func() { <-released })
	r := runEngine(t, cfg, &scripted{rules: []rule{raceDuplicates(false)}}, 1)
	if len(r.bugs) != 1 {
		t.Fatalf("%d bugs reported, want the race", len(r.bugs))
	}
	want := model.Plan{Steps: []model.Step{burstOf(a1, a1)}}
	if b := r.bugs[0]; b.NotMinimal || b.Plan.String() != want.String() {
		t.Errorf("bug %s shrank to %s (not minimal: %t) after waiting for rapid; want %s", b.Bug, b.Plan.Compact(), b.NotMinimal, want.Compact())
	}
}
