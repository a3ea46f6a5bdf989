package gen_test

import (
	"testing"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Issue 27.1: under FollowUp a call that crashed, errored or lost its
// reply is mostly followed by the same call retried (after the restart a
// crash gets), so that what the service does next is tried on purpose;
// without it, and for a fault that leaves nothing open, no retry is
// composed.
func TestPlanFollowsAFaultedCallByItsRetry(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults = []model.Fault{model.FaultCrash, model.FaultDBError, model.FaultLoseReply, model.FaultDropRequest}
	w.FollowUp = true
	followed := func(p model.Plan, i int) bool {
		c := p.Steps[i].Calls[0]
		next := i + 1
		if faultkind.Crashes(c.Fault) {
			if p.Steps[next].Kind != model.StepRestart {
				t.Fatalf("a crash without its restart:\n%s", p)
			}
			next++
		}
		retry := c
		retry.Fault = model.FaultNone
		return next < len(p.Steps) && p.Steps[next].Kind == model.StepCall && p.Steps[next].Calls[0] == retry
	}
	faulted, retried := map[model.Fault]int{}, map[model.Fault]int{}
	for seed := range 300 {
		p := gen.Plan(w).Example(seed)
		for i, s := range p.Steps {
			if s.Kind != model.StepCall || s.Calls[0].Fault == model.FaultNone || s.Calls[0].NoKey {
				continue
			}
			f := s.Calls[0].Fault
			faulted[f]++
			if followed(p, i) {
				retried[f]++
			}
		}
	}
	t.Logf("faulted %v, followed by their retry %v", faulted, retried)
	for _, f := range []model.Fault{model.FaultCrash, model.FaultDBError, model.FaultLoseReply} {
		if faulted[f] < 20 || retried[f]*10 < faulted[f]*6 {
			t.Errorf("%s: %d of %d calls followed by their retry, want most", f, retried[f], faulted[f])
		}
	}
	// A dropped request reached nothing: a retry after it is only what
	// the plan draws by chance (the call itself again, one time in many).
	if retried[model.FaultDropRequest]*4 > faulted[model.FaultDropRequest] {
		t.Errorf("drop-request: %d of %d followed by their retry, want few", retried[model.FaultDropRequest], faulted[model.FaultDropRequest])
	}
	w.FollowUp = false
	n := 0
	for seed := range 300 {
		p := gen.Plan(w).Example(seed)
		for i, s := range p.Steps {
			if s.Kind == model.StepCall && s.Calls[0].Fault == model.FaultCrash && !s.Calls[0].NoKey && followed(p, i) {
				n++
			}
		}
	}
	if n*4 > faulted[model.FaultCrash] {
		t.Errorf("without FollowUp %d crashes were followed by their retry, want as few as chance gives", n)
	}
}

// A dealt fault that leaves its call's fate open is in a plan only with
// its retry, when the world follows faults up.
func TestDealRetried(t *testing.T) {
	w := gen.World{MaxTenants: 1, MaxKeys: 1, MaxVariants: 1, MaxSteps: 4, FollowUp: true,
		Faults: []model.Fault{model.FaultCrash, model.FaultDropRequest}}
	all := gen.Deals(w)
	if len(all) != 3 || !all[0].Alone || !all[1].Retried || all[2].Retried || all[2].Alone {
		t.Fatalf("Deals = %+v, want crash dealt alone, then with its retry, then drop-request", all)
	}
	ds := all[1:]
	crash := model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: model.FaultCrash}}}
	restart := model.Step{Kind: model.StepRestart}
	retry := model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}
	other := model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k2"}}}
	for _, tc := range []struct {
		plan model.Plan
		want bool
	}{
		{model.Plan{Steps: []model.Step{crash, restart, retry}}, true},
		{model.Plan{Steps: []model.Step{crash, restart}}, false},
		{model.Plan{Steps: []model.Step{crash, restart, other}}, false},
		{model.Plan{Steps: []model.Step{retry, crash, restart}}, false},
	} {
		if got := ds[0].In(tc.plan); got != tc.want {
			t.Errorf("%+v in %q: %v, want %v", ds[0], tc.plan.Compact(), got, tc.want)
		}
	}
	for _, tc := range []struct {
		plan model.Plan
		want bool
	}{
		{model.Plan{Steps: []model.Step{crash, restart}}, true},
		{model.Plan{Steps: []model.Step{crash, restart, other}}, true},
		{model.Plan{Steps: []model.Step{crash, restart, retry}}, false},
	} {
		if got := all[0].In(tc.plan); got != tc.want {
			t.Errorf("%+v in %q: %v, want %v", all[0], tc.plan.Compact(), got, tc.want)
		}
	}
	if !(gen.Deal{Fault: model.FaultCrash}).In(model.Plan{Steps: []model.Step{crash, restart, retry}}) {
		t.Errorf("a crash dealt with no condition is not in a plan with its retry")
	}
}
