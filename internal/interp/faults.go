package interp

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemstress/idemstress/internal/fault/nemesis"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// faulty does one call that carries a planned fault, through the plan's
// faults (Executor.Nemesis), and records what it did as an event beside
// the calls it sent, fired or not.
func (x *execution) faulty(ctx context.Context, call model.Call) error {
	ev := model.FaultEvent{Kind: call.Fault, Step: x.step, Point: call.Point, Start: x.now()}
	tied, untie := x.tie(call)
	depTied, untieDeps := x.tieDeps(call)
	x.tied, x.depTied = tied, depTied
	out, err := x.faults.Call(ctx, call)
	x.tied, x.depTied = nil, nil
	untie()
	untieDeps()
	if errors.Is(err, nemesis.ErrUnknownKind) {
		return fmt.Errorf("interp: step %d: %w", x.step+1, err)
	}
	ev.End = x.now()
	ev.Ops = x.add(out.Ops)
	ev.Fired, ev.Held, ev.Note = out.Fired, out.Held, out.Note
	x.h.Faults = append(x.h.Faults, ev)
	return err
}

// faultStep does a fault step of its own (a restart of every replica, a
// dependency's restart or crash) through the plan's faults, and records
// it as an event.
func (x *execution) faultStep(ctx context.Context, step model.Step) error {
	ev := model.FaultEvent{Kind: nemesis.StepKind(step), Step: x.step, Target: step.Target, Start: x.now()}
	out, err := x.faults.Step(ctx, step)
	if err != nil {
		if errors.Is(err, ErrInfrastructure) || ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("interp: step %d: %w", x.step+1, err)
	}
	ev.End, ev.Fired, ev.Note = x.now(), out.Fired, out.Note
	x.h.Faults = append(x.h.Faults, ev)
	return nil
}

// sender is the execution as the plan's faults see it (nemesis.Sender).
type sender struct{ x *execution }

func (s sender) Send(ctx context.Context, call model.Call, replica int, extra map[string]string) (model.Op, error) {
	return s.x.call(ctx, call, replica, extra)
}

func (s sender) Token() string            { return fmt.Sprintf("%s%d", s.x.ns, len(s.x.h.Ops)) }
func (s sender) Contract() model.Contract { return s.x.Contract }
func (s sender) DB() *pgproxy.Proxy       { return s.x.DB }
func (s sender) DBCall() *pgproxy.Call    { return s.x.tied }

// Restarted drops the target's kept-alive connections to replicas that
// are gone, so that no call is sent on a dead one.
func (s sender) Restarted() {
	if c, ok := s.x.Target.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
