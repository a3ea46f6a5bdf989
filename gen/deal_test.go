package gen_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// A deal is in a plan only when the plan carries that very fault: on a
// call, as a restart step, or as the fault step on its own dependency.
func TestDealIn(t *testing.T) {
	call := func(f model.Fault) model.Step {
		return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: f}}}
	}
	dep := func(f model.Fault, target string) model.Step {
		return model.Step{Kind: model.StepFault, Fault: f, Target: target}
	}
	plan := model.Plan{Steps: []model.Step{call(model.FaultCrash), {Kind: model.StepRestart}, dep(model.FaultDepRestart, "redis"), call(model.FaultNone), {Kind: model.StepRestart}}}
	for _, tc := range []struct {
		d    gen.Deal
		want bool
	}{
		{gen.Deal{Fault: model.FaultCrash}, true},
		{gen.Deal{Fault: model.FaultDepRestart, Target: "redis"}, true},
		{gen.Deal{Fault: model.FaultLoseReply}, false},
		{gen.Deal{Fault: model.FaultDepRestart, Target: "keys"}, false},
		{gen.Deal{Fault: model.FaultDepCrash, Target: "redis"}, false},
	} {
		if got := tc.d.In(plan); got != tc.want {
			t.Errorf("%v in the plan: %v, want %v", tc.d, got, tc.want)
		}
	}
	restart := gen.Deal{Fault: model.FaultRestart}
	if !restart.In(plan) {
		t.Errorf("restart not found in a plan with a restart step of its own")
	}
	if restart.In(model.Plan{Steps: []model.Step{call(model.FaultNone)}}) {
		t.Errorf("restart found in a plan without a restart step")
	}
	// The restart Plan puts after a crash starts a killed replica: it is
	// not the graceful restart the deal asks for.
	if restart.In(model.Plan{Steps: plan.Steps[:2]}) {
		t.Errorf("restart found in a plan whose only restart follows a crash")
	}
}

// A fault that lands at a point is dealt once for each point of the
// world, and a plan carries the deal only with that very point; the
// generator draws the point from the world's.
func TestDealsEveryPoint(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults = []model.Fault{model.FaultCrashAt, model.FaultLoseReply}
	w.Points = []string{"before statement 1", "after commit 1", "after tx 1"}
	deals := gen.Deals(w)
	if len(deals) != 4 || deals[0].Point != "before statement 1" || deals[2].Point != "after tx 1" || deals[3].Fault != model.FaultLoseReply {
		t.Fatalf("deals %+v, want a crash-at for each point, then lose-reply", deals)
	}
	plan := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: model.FaultCrashAt, Point: "after commit 1"}}}}}
	if deals[0].In(plan) || !deals[1].In(plan) {
		t.Errorf("plan %s: deals of its point %v and of another %v", plan, deals[1].In(plan), deals[0].In(plan))
	}
	seen := map[string]bool{}
	for seed := range 300 {
		for _, s := range gen.Plan(w).Example(seed).Steps {
			for _, c := range s.Calls {
				if c.Fault == model.FaultCrashAt {
					seen[c.Point] = true
				} else if c.Point != "" {
					t.Fatalf("call %s names a point without a fault that lands at one", c)
				}
			}
		}
	}
	for _, p := range w.Points {
		if !seen[p] {
			t.Errorf("no plan of 300 drew %q (drew %v)", p, seen)
		}
	}
}

// A fault that names its failure (db-error) is dealt once alone, then
// once for each failure of the world with its retry; the generator draws
// the failure from the world's, and names none without them.
func TestDealsEveryCode(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults, w.FollowUp = []model.Fault{model.FaultDBError}, true
	w.Codes = []string{"40001", "40P01", "57P01", "08006"}
	deals := gen.Deals(w)
	if len(deals) != 5 || !deals[0].Alone || deals[0].Point != "" || deals[1].Point != "40001" || !deals[1].Retried || deals[4].Point != "08006" {
		t.Fatalf("deals %+v, want db-error alone, then each failure with its retry", deals)
	}
	seen := map[string]int{}
	for seed := range 300 {
		for _, s := range gen.Plan(w).Example(seed).Steps {
			for _, c := range s.Calls {
				if c.Fault == model.FaultDBError {
					seen[c.Point]++
				}
			}
		}
	}
	for _, code := range w.Codes {
		if seen[code] == 0 {
			t.Errorf("no plan of 300 drew db-error %s (drew %v)", code, seen)
		}
	}
	if seen[""] > 0 {
		t.Errorf("%d db-errors named no failure where the world has them", seen[""])
	}
	w.Codes = nil
	if deals := gen.Deals(w); len(deals) != 2 || deals[0].Point != "" || deals[1].Point != "" {
		t.Errorf("deals without failures %+v, want db-error alone and with its retry", deals)
	}
	for seed := range 100 {
		for _, s := range gen.Plan(w).Example(seed).Steps {
			for _, c := range s.Calls {
				if c.Point != "" {
					t.Fatalf("call %s names a failure the world does not have", c)
				}
			}
		}
	}
}

// A fault at a retry's point is drawn on a retry composed on purpose
// (the call, then the same call faulted) and kept only there; a first
// call's point only on an action's first call. Each retry's point is
// dealt a plan of its own, after the first call's.
func TestRetryPoints(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults, w.FollowUp = []model.Fault{model.FaultCrashAt}, true
	w.Points = []string{"before statement 1", "after commit 1"}
	w.RetryPoints = []string{"before statement 1", "after statement 1", "before commit 1"}
	deals := gen.Deals(w)
	if len(deals) != 5 || deals[1].Point != "after commit 1" || deals[2].Point != "retry before statement 1" || deals[4].Point != "retry before commit 1" {
		t.Fatalf("deals %+v, want each first call's point, then each retry's", deals)
	}
	seen := map[string]bool{}
	for seed := range 500 {
		p := gen.Plan(w).Example(seed)
		calls := map[model.Action][]model.Call{}
		for _, s := range p.Steps {
			for _, c := range s.Calls {
				if c.Fault == model.FaultCrashAt {
					seen[c.Point] = true
					_, retry := coverage.OfRetry(c.Point)
					before := calls[c.Action()]
					switch {
					case !retry && len(before) > 0:
						t.Fatalf("plan %s: a first call's point on a call of an action called before", p.Compact())
					case retry && (len(before) != 1 || before[0].Fault != model.FaultNone || before[0].Variant != c.Variant):
						t.Fatalf("plan %s: a retry's point on a call that follows no completed call of its action", p.Compact())
					}
				}
				calls[c.Action()] = append(calls[c.Action()], c)
			}
		}
	}
	for _, p := range append(slices.Clone(w.Points), "retry before statement 1", "retry after statement 1", "retry before commit 1") {
		if !seen[p] {
			t.Errorf("no plan of 500 drew %q (drew %v)", p, seen)
		}
	}
	call := func(f model.Fault, point string) model.Step {
		return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: f, Point: point}}}
	}
	retried := model.Plan{Steps: []model.Step{call("", ""), call(model.FaultCrashAt, "retry before statement 1"), {Kind: model.StepRestart}, call("", "")}}
	if !deals[2].In(retried) || deals[0].In(retried) || deals[3].In(retried) {
		t.Errorf("plan %s: in its deal %v, in a first call's %v, in another retry point's %v", retried.Compact(), deals[2].In(retried), deals[0].In(retried), deals[3].In(retried))
	}
}

// Two faults that name their failures share the world's failures, and
// each draws and is dealt only its own: db-error a SQLSTATE, dep-error a
// dependency's failure.
func TestCodesOfEachFault(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults, w.FollowUp = []model.Fault{model.FaultDBError, model.FaultDepError}, true
	w.Codes = []string{"40001", "08006", "redis OOM", "redis cut"}
	var dealt []string
	for _, d := range gen.Deals(w) {
		if d.Point != "" {
			dealt = append(dealt, string(d.Fault)+" "+d.Point)
		}
	}
	if want := []string{"db-error 40001", "db-error 08006", "dep-error redis OOM", "dep-error redis cut"}; !slices.Equal(dealt, want) {
		t.Errorf("dealt %q, want %q", dealt, want)
	}
	for seed := range 300 {
		for _, s := range gen.Plan(w).Example(seed).Steps {
			for _, c := range s.Calls {
				if c.Fault != model.FaultNone && c.Point != "" && !faultkind.CodeFor(c.Fault, c.Point) {
					t.Fatalf("call %s names another fault's failure", c)
				}
			}
		}
	}
}

// A fault that names what it acts on (dep-error's dependency) is neither
// drawn nor dealt in a world that names it nothing: it could not fire.
func TestNoDependencyNoDepError(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults, w.FollowUp = []model.Fault{model.FaultDBError, model.FaultDepError}, true
	w.Codes = []string{"40001"}
	for _, d := range gen.Deals(w) {
		if d.Fault == model.FaultDepError {
			t.Fatalf("dealt %+v in a world without a dependency's failure", d)
		}
	}
	drew := false
	for seed := range 200 {
		for _, s := range gen.Plan(w).Example(seed).Steps {
			for _, c := range s.Calls {
				drew = drew || c.Fault == model.FaultDBError
				if c.Fault == model.FaultDepError {
					t.Fatalf("call %s drew dep-error in a world without a dependency's failure", c)
				}
			}
		}
	}
	if !drew {
		t.Error("no plan of 200 drew db-error")
	}
}

// A fault's transition is whole only when the same call follows it: a
// call of the action that breaks a payload rule, or sends another
// payload, is refused before it reaches the key and retries nothing (a
// crash "retried" so left stuck-in-flight uncaught on a seed).
func TestDealRetriedNeedsTheSameCall(t *testing.T) {
	crash := model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrash}
	retried := gen.Deal{Fault: model.FaultCrash, Retried: true}
	alone := gen.Deal{Fault: model.FaultCrash, Alone: true}
	for _, tc := range []struct {
		name  string
		retry model.Call
		want  bool
	}{
		{"the same call", model.Call{Tenant: "A", Key: "k1"}, true},
		{"re-encoded", model.Call{Tenant: "A", Key: "k1", Encoding: 2}, true},
		{"broken", model.Call{Tenant: "A", Key: "k1", Broken: 1}, false},
		{"another payload", model.Call{Tenant: "A", Key: "k1", Variant: 1}, false},
		{"another action's values", model.Call{Tenant: "A", Key: "k1", UniqueOf: "k2"}, false},
		{"another key", model.Call{Tenant: "A", Key: "k2"}, false},
	} {
		p := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{crash}}, {Kind: model.StepRestart},
			{Kind: model.StepCall, Calls: []model.Call{tc.retry}}}}
		if got := retried.In(p); got != tc.want {
			t.Errorf("%s: crash with its retry in %s: %v, want %v", tc.name, p.Compact(), got, tc.want)
		}
		if got := alone.In(p); got == tc.want {
			t.Errorf("%s: crash alone in %s: %v, want %v", tc.name, p.Compact(), got, !tc.want)
		}
	}
}
