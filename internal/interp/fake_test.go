package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/fault/nemesis"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
)

// fakeNemesis is a scripted nemesis (nemesis.Nemesis and its plan's
// nemesis.PlanFaults at once): a fake fault proxy and fake crashes whose
// call faults answer as a test says, a fake db-stall, and a fake service
// whose replica, once it is dying, is seen gone only by a look that waits
// for it (a process's exit is reaped a moment after its socket closes).
// It records every look for an exit and how long it waited.
type fakeNemesis struct {
	// calls do each call fault: what the call got, sent through s or not.
	calls map[model.Fault]func(ctx context.Context, s nemesis.Sender, call model.Call) (fault.CallOutcome, error)
	// burst is what db-stall did to each burst ("" Kind: there is none).
	burst nemesis.BurstOutcome
	// failure is the fault proxy's failure to reach its replica.
	failure error

	s nemesis.Sender
	// dying is the exit of a replica that is dying, seen by the next look
	// that waits.
	dying *process.Exit
	down  bool
	// waits are the waits of every look for an exit, in order.
	waits []time.Duration
	// polled counts the retries Poll sent; ended says End was called.
	polled int
	ended  bool
}

func (f *fakeNemesis) Begin(_ context.Context, s nemesis.Sender) (nemesis.PlanFaults, error) {
	f.s = s
	return f, nil
}

// die has the replica die of the call just sent, a moment after it.
func (f *fakeNemesis) die() {
	f.dying = &process.Exit{Replica: 0, Status: "exit status 1", Output: "Unhandled 'error' event", At: time.Now()}
}

func (f *fakeNemesis) Call(ctx context.Context, call model.Call) (fault.CallOutcome, error) {
	do, ok := f.calls[call.Fault]
	if !ok {
		return fault.CallOutcome{}, fmt.Errorf("fault %q of a call is %w", call.Fault, nemesis.ErrUnknownKind)
	}
	out, err := do(ctx, f.s, call)
	f.down = f.down || out.Down
	return out, err
}

func (f *fakeNemesis) Step(_ context.Context, step model.Step) (fault.Outcome, error) {
	if nemesis.StepKind(step) == model.FaultRestart {
		f.down = false
		f.s.Restarted()
		return fault.Outcome{Fired: true, Up: true}, nil
	}
	return fault.Outcome{Note: "no dependency " + step.Target}, nil
}

func (f *fakeNemesis) Burst(ctx context.Context, _ int, burst nemesis.Burst) (nemesis.BurstOutcome, error) {
	burst(ctx, nil, nil)
	return f.burst, nil
}

func (f *fakeNemesis) Down() bool { return f.down }

// Poll sends one retry of an in_flight answer.
func (f *fakeNemesis) Poll(ctx context.Context, _ model.Call, op model.Op, resend func(context.Context) (model.Op, error)) error {
	if op.Out.Kind != model.InFlight {
		return nil
	}
	f.polled++
	_, err := resend(ctx)
	return err
}

func (f *fakeNemesis) Exit(_ context.Context, wait time.Duration) (process.Exit, bool, error) {
	f.waits = append(f.waits, wait)
	if f.dying == nil || wait == 0 {
		return process.Exit{}, false, nil
	}
	e := *f.dying
	f.dying = nil
	f.s.Restarted()
	return e, true, nil
}

func (f *fakeNemesis) Failure() error { return f.failure }

func (f *fakeNemesis) End(context.Context) error {
	f.ended = true
	f.down = false
	return nil
}

// answering is a target that answers every call 201 with an ID, but a
// call to key k0, which gets no answer (the replica serving it dies, when
// die is set), and one to key busy, answered 409 (in flight).
func answering(die func()) client.Target {
	return client.Func(func(_ context.Context, req client.Request) (client.Response, error) {
		if strings.HasSuffix(req.Key, "k0") {
			if die != nil {
				die()
			}
			return client.Response{}, errors.New("connection reset by peer")
		}
		if strings.HasSuffix(req.Key, "busy") {
			return client.Response{Status: 409}, nil
		}
		return client.Response{Status: 201, ID: "7"}, nil
	})
}

// sent sends the call through s as it is, as a fault does.
func sent(ctx context.Context, s nemesis.Sender, call model.Call) model.Op {
	op, _ := s.Send(ctx, call, 0, nil)
	return op
}

// unanswered is an op of call that got no answer for why.
func unanswered(call model.Call, why string) model.Op {
	return model.Op{Call: call, Out: model.Outcome{Kind: model.Unknown, Err: why}}
}
