package interp

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// faulty does one call that carries a planned fault, through package
// fault's registry, and records what it did as an event beside the
// calls it sent, fired or not.
func (x *execution) faulty(ctx context.Context, call model.Call) error {
	do, ok := fault.Call(call.Fault)
	if !ok {
		return fmt.Errorf("interp: step %d: fault %q of a call is not supported", x.step+1, call.Fault)
	}
	ev := model.FaultEvent{Kind: call.Fault, Step: x.step, Point: call.Point, Start: x.now()}
	tied, untie := x.tie(call)
	depTied, untieDeps := x.tieDeps(call)
	x.tied, x.depTied = tied, depTied
	out, err := do(ctx, callEnv{x}, call)
	x.tied, x.depTied = nil, nil
	untie()
	untieDeps()
	ev.End = x.now()
	ev.Ops = x.add(out.Ops)
	ev.Fired, ev.Held, ev.Note = out.Fired, out.Held, out.Note
	x.h.Faults = append(x.h.Faults, ev)
	if out.Down {
		x.down = true
	}
	if out.CutOff && len(out.Ops) > 0 {
		if x.cutOff == nil {
			x.cutOff = map[model.Action]int64{}
		}
		x.cutOff[x.Contract.ActionOf(call)] = out.Ops[0].End
	}
	return err
}

// callEnv is what a call fault reaches of the execution under way
// (fault.CallEnv).
type callEnv struct{ x *execution }

func (e callEnv) Send(ctx context.Context, call model.Call, replica int, extra map[string]string) (model.Op, error) {
	return e.x.call(ctx, call, replica, extra)
}

func (e callEnv) Token() string { return fmt.Sprintf("%s%d", e.x.ns, len(e.x.h.Ops)) }

func (e callEnv) Proxy() *fault.Proxy {
	if len(e.x.Proxies) == 0 {
		return nil
	}
	return e.x.Proxies[0]
}

func (e callEnv) Replicas() fault.Replicas {
	if e.x.Service == nil {
		return nil
	}
	return e.x.Service
}

func (e callEnv) DB() *pgproxy.Proxy    { return e.x.DB }
func (e callEnv) DBCall() *pgproxy.Call { return e.x.tied }

func (e callEnv) EffectStall() *fault.Stall                       { return e.x.EffectStall }
func (e callEnv) KeyStall() *fault.Stall                          { return e.x.KeyStall }
func (e callEnv) Contract() model.Contract                        { return e.x.Contract }
func (e callEnv) Dependency(name string) (fault.Dependency, bool) { return e.x.Dependency(name) }

// faultStep does a fault step of its own (a dependency's restart or
// crash) through package fault's registry, and records it as an event.
func (x *execution) faultStep(ctx context.Context, step model.Step) error {
	do, ok := fault.Step(step.Fault)
	if !ok {
		return fmt.Errorf("interp: step %d: fault step %q is not supported", x.step+1, step.Fault)
	}
	ev := model.FaultEvent{Kind: step.Fault, Step: x.step, Target: step.Target, Start: x.now()}
	out, err := do(ctx, x, step.Target)
	if err != nil {
		return stoppedOr(ctx, fmt.Errorf("%w: %s: %w", ErrInfrastructure, step, err))
	}
	ev.End, ev.Fired, ev.Note = x.now(), out.Fired, out.Note
	x.h.Faults = append(x.h.Faults, ev)
	return nil
}

// Dependency is the dependency called name that idemstress started beside
// the service (fault.Env).
func (x *execution) Dependency(name string) (fault.Dependency, bool) {
	if x.Service == nil {
		return nil, false
	}
	if d := x.Service.Dependency(name); d != nil {
		return d, true
	}
	return nil, false
}

// closeIdle drops the target's kept-alive connections to replicas that
// are gone, so that no call is sent on a dead one.
func (x *execution) closeIdle() {
	if c, ok := x.Target.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// stoppedOr is err, or the context's end when that came first.
func stoppedOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
