package interp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/fault/nemesis"
	"github.com/idemstress/idemstress/internal/model"
)

// The interpreter on a fake nemesis, with no database and no process:
// what it records of each fault, and when it waits for a replica.

var (
	k0 = model.Call{Tenant: "A", Key: "k0"}
	k1 = model.Call{Tenant: "A", Key: "k1"}
)

func calls(cs ...model.Call) model.Step { return model.Step{Kind: model.StepCall, Calls: cs} }

func with(c model.Call, f model.Fault) model.Call { c.Fault = f; return c }

func execute(t *testing.T, f *fakeNemesis, die bool, steps ...model.Step) (model.History, error) {
	t.Helper()
	var dies func()
	if die {
		dies = f.die
	}
	x := Executor{Target: answering(dies), Spec: contract.Spec{Contract: model.Contract{Payload: map[string]any{"n": 1}}.WithDefaults()}, Nemesis: f}
	return x.Execute(t.Context(), "fk-", model.Plan{Steps: steps}, time.Now())
}

// A replica may still be dying when a call of the step before got no
// answer by no proxy fault's doing (a db-error whose replica dies of it):
// the look before the next step waits exitGrace for its exit, which is
// then filed under the step whose call it cut off, touching that call.
// After a lost reply or dropped request (the fault proxy's doing), an
// answered call, or a crash that left the replica down, it does not wait.
func TestWaitsForADyingReplicaBeforeTheNextStep(t *testing.T) {
	dbError := func(ctx context.Context, s nemesis.Sender, call model.Call) (fault.CallOutcome, error) {
		return fault.CallOutcome{Ops: []model.Op{sent(ctx, s, call)}, Fired: true}, nil
	}
	lost := func(_ context.Context, _ nemesis.Sender, call model.Call) (fault.CallOutcome, error) {
		return fault.CallOutcome{Ops: []model.Op{unanswered(call, "reply lost")}, Fired: true}, nil
	}
	crash := func(_ context.Context, _ nemesis.Sender, call model.Call) (fault.CallOutcome, error) {
		return fault.CallOutcome{Ops: []model.Op{unanswered(call, "EOF")}, Fired: true, Down: true, CutOff: true}, nil
	}
	faults := map[model.Fault]func(context.Context, nemesis.Sender, model.Call) (fault.CallOutcome, error){
		model.FaultDBError: dbError, model.FaultLoseReply: lost, model.FaultDropRequest: lost, model.FaultCrash: crash,
	}
	tests := []struct {
		name  string
		first model.Call
		die   bool
		// wait is the look's wait before the second step; exited says a
		// replica's exit is filed under the first step, touching its call.
		wait   time.Duration
		exited bool
	}{
		{"a db-error's call cut off by its replica's death", with(k0, model.FaultDBError), true, exitGrace, true},
		{"an unfaulted call cut off by its replica's death", k0, true, exitGrace, true},
		{"an unanswered call whose replica lives", k0, false, exitGrace, false},
		{"a lost reply", with(k0, model.FaultLoseReply), false, 0, false},
		{"a dropped request", with(k0, model.FaultDropRequest), false, 0, false},
		{"an answered call", k1, false, 0, false},
		{"a db-error's call answered", with(k1, model.FaultDBError), false, 0, false},
		{"a crash that left the replica down", with(k0, model.FaultCrash), false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeNemesis{calls: faults}
			h, err := execute(t, f, tt.die, calls(tt.first), model.Step{Kind: model.StepRestart}, calls(k1))
			if err != nil {
				t.Fatal(err)
			}
			// The first look is before step 1; the second, before step 2.
			if len(f.waits) < 2 || f.waits[1] != tt.wait {
				t.Fatalf("looks for an exit waited %v; want the look before step 2 to wait %v", f.waits, tt.wait)
			}
			i := slices.IndexFunc(h.Faults, func(ev model.FaultEvent) bool { return ev.Kind == model.FaultExit })
			switch {
			case !tt.exited && i >= 0:
				t.Fatalf("an exit was recorded: %v", h.Faults)
			case tt.exited && i < 0:
				t.Fatalf("no exit recorded: %v", h.Faults)
			case tt.exited && (h.Faults[i].Step != 0 || !slices.Equal(h.Faults[i].Ops, []int{0})):
				t.Fatalf("exit %v filed under step %d touching calls %v; want step 1's, touching its call", h.Faults[i], h.Faults[i].Step+1, h.Faults[i].Ops)
			}
		})
	}
}

// What the interpreter records of each thing the nemesis did: every fault
// an event on the history's clock, the calls it touched, a crash's down
// replica serving nobody until a restart, and the failures that are the
// run's.
func TestRecordsWhatTheNemesisDid(t *testing.T) {
	released := time.Now().Add(time.Hour)
	tests := []struct {
		name  string
		f     *fakeNemesis
		steps []model.Step
		check func(t *testing.T, f *fakeNemesis, h model.History, err error)
	}{
		{"a call fault is an event touching the calls it sent",
			&fakeNemesis{calls: map[model.Fault]func(context.Context, nemesis.Sender, model.Call) (fault.CallOutcome, error){
				model.FaultPause: func(ctx context.Context, s nemesis.Sender, call model.Call) (fault.CallOutcome, error) {
					retry := call
					retry.Fault = model.FaultNone
					return fault.CallOutcome{Ops: []model.Op{sent(ctx, s, call), sent(ctx, s, retry)}, Fired: true, Held: 1}, nil
				}}},
			[]model.Step{calls(k1), calls(with(k1, model.FaultPause))},
			func(t *testing.T, _ *fakeNemesis, h model.History, err error) {
				if err != nil || len(h.Ops) != 3 || len(h.Faults) != 1 {
					t.Fatalf("history %v %v, %v; want 3 calls and the pause", h.Ops, h.Faults, err)
				}
				ev := h.Faults[0]
				if ev.Kind != model.FaultPause || ev.Step != 1 || !ev.Fired || ev.Held != 1 || !slices.Equal(ev.Ops, []int{1, 2}) || h.Ops[2].Step != 1 {
					t.Fatalf("event %+v; want pause of step 2, fired, held 1, touching calls 2 and 3", ev)
				}
			}},
		{"a kind the nemesis does not do stops the run, naming the step",
			&fakeNemesis{},
			[]model.Step{calls(k1), calls(with(k1, "melt"))},
			func(t *testing.T, _ *fakeNemesis, h model.History, err error) {
				if err == nil || err.Error() != `interp: step 2: fault "melt" of a call is not supported` || len(h.Faults) != 0 {
					t.Fatalf("error %v, events %v; want step 2's fault not supported, and no event", err, h.Faults)
				}
			}},
		{"a crash's replica serves nobody until a restart, and its event lists the calls",
			&fakeNemesis{calls: map[model.Fault]func(context.Context, nemesis.Sender, model.Call) (fault.CallOutcome, error){
				model.FaultCrash: func(_ context.Context, _ nemesis.Sender, call model.Call) (fault.CallOutcome, error) {
					return fault.CallOutcome{Ops: []model.Op{unanswered(call, "EOF")}, Fired: true, Down: true, CutOff: true}, nil
				}}},
			[]model.Step{calls(with(k1, model.FaultCrash)), calls(k1), {Kind: model.StepRestart}, calls(k1)},
			func(t *testing.T, f *fakeNemesis, h model.History, err error) {
				if err != nil || len(h.Ops) != 3 || len(h.Faults) != 2 {
					t.Fatalf("history %v %v, %v; want 3 calls, the crash and the restart", h.Ops, h.Faults, err)
				}
				if !strings.Contains(h.Ops[1].Out.Err, "replica down after a crash") || !slices.Equal(h.Faults[0].Ops, []int{0, 1}) {
					t.Fatalf("call 2 %+v, crash touching %v; want it unserved and touched by the crash", h.Ops[1].Out, h.Faults[0].Ops)
				}
				if ev := h.Faults[1]; ev.Kind != model.FaultRestart || ev.Step != 2 || !ev.Fired || h.Ops[2].Out.Kind != model.OK || !f.ended {
					t.Fatalf("restart %+v, call 3 %+v, ended %v; want the restart fired and call 3 answered", ev, h.Ops[2].Out, f.ended)
				}
			}},
		{"a fault step is an event with its target",
			&fakeNemesis{},
			[]model.Step{{Kind: model.StepFault, Fault: model.FaultDepCrash, Target: "redis"}},
			func(t *testing.T, _ *fakeNemesis, h model.History, err error) {
				if err != nil || len(h.Faults) != 1 || h.Faults[0].Kind != model.FaultDepCrash || h.Faults[0].Target != "redis" || h.Faults[0].Fired || h.Faults[0].Note == "" {
					t.Fatalf("events %v, %v; want dep-crash on redis, not fired, saying why", h.Faults, err)
				}
			}},
		{"a db-stall is an event that ends when it let the burst go",
			&fakeNemesis{burst: nemesis.BurstOutcome{Kind: model.FaultDBStall, Fired: true, Held: 2, Released: released}},
			[]model.Step{{Kind: model.StepBurst, Calls: []model.Call{k1, k1}}},
			func(t *testing.T, _ *fakeNemesis, h model.History, err error) {
				if err != nil || len(h.Ops) != 2 || len(h.Faults) != 1 {
					t.Fatalf("history %v %v, %v; want 2 calls and the stall", h.Ops, h.Faults, err)
				}
				if ev := h.Faults[0]; ev.Kind != model.FaultDBStall || !ev.Fired || ev.Held != 2 || !slices.Equal(ev.Ops, []int{0, 1}) || time.Duration(ev.End) < 59*time.Minute {
					t.Fatalf("event %+v; want db-stall fired, held 2, touching both calls, ending at its release", ev)
				}
			}},
		{"a burst no nemesis held is no event",
			&fakeNemesis{},
			[]model.Step{{Kind: model.StepBurst, Calls: []model.Call{k1, k1}}},
			func(t *testing.T, _ *fakeNemesis, h model.History, err error) {
				if err != nil || len(h.Ops) != 2 || len(h.Faults) != 0 {
					t.Fatalf("history %v %v, %v; want 2 calls and no event", h.Ops, h.Faults, err)
				}
			}},
		{"a fault proxy that could not reach a live replica stops the run",
			&fakeNemesis{failure: errors.New("fault proxy: connection refused")},
			[]model.Step{calls(k1)},
			func(t *testing.T, f *fakeNemesis, _ model.History, err error) {
				if !errors.Is(err, ErrInfrastructure) || f.waits[len(f.waits)-1] != exitGrace {
					t.Fatalf("error %v after looks %v; want an infrastructure failure after waiting for an exit", err, f.waits)
				}
			}},
		{"an in_flight answer is polled by the nemesis, every answer recorded",
			&fakeNemesis{},
			[]model.Step{calls(model.Call{Tenant: "A", Key: "busy"})},
			func(t *testing.T, f *fakeNemesis, h model.History, err error) {
				if err != nil || f.polled != 1 || len(h.Ops) != 2 {
					t.Fatalf("polled %d, history %v, %v; want one retry recorded", f.polled, h.Ops, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := execute(t, tt.f, false, tt.steps...)
			tt.check(t, tt.f, h, err)
		})
	}
}
