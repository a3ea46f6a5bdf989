package interp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
)

// reportWait bounds the wait for the proxy's report of a call's fault,
// which it files once the exchange is over, maybe just after the client
// saw its end.
const reportWait = 5 * time.Second

// faulty sends one call that carries a planned fault and records the
// fault as an event beside the call, fired or not.
func (x *execution) faulty(ctx context.Context, call model.Call) error {
	ev := model.FaultEvent{Kind: call.Fault, Step: x.step, Start: x.now()}
	var op model.Op
	var err error
	switch {
	case slices.Contains(model.ProxyFaults, call.Fault):
		op, err = x.proxied(ctx, call, &ev)
	case call.Fault == model.FaultCrashAfterCommit:
		op, err = x.crashedAfterCommit(ctx, call, &ev)
	case model.Crashes(call.Fault):
		op, err = x.crashed(ctx, call, &ev)
	case call.Fault == model.FaultDBError:
		op, err = x.failed(ctx, call, &ev)
	case call.Fault == model.FaultPause, call.Fault == model.FaultSlowOriginal:
		var ops []model.Op
		if call.Fault == model.FaultPause {
			ops, err = x.paused(ctx, call, &ev)
		} else {
			ops, err = x.overran(ctx, call, &ev)
		}
		ev.End = x.now()
		ev.Ops = x.add(ops)
		x.h.Faults = append(x.h.Faults, ev)
		return err
	default:
		return fmt.Errorf("stress: step %d: fault %q of a call is not supported", x.step+1, call.Fault)
	}
	ev.End = x.now()
	ev.Ops = x.add([]model.Op{op})
	x.h.Faults = append(x.h.Faults, ev)
	return err
}

// proxied sends the call through the fault proxy of its replica, asking
// for the fault by header, and asks the proxy whether it fired.
func (x *execution) proxied(ctx context.Context, call model.Call, ev *model.FaultEvent) (model.Op, error) {
	if len(x.Proxies) == 0 {
		return model.Op{}, fmt.Errorf("stress: fault %s needs the fault proxy, and the run has none", call.Fault)
	}
	token := fmt.Sprintf("%s%d", x.ns, len(x.h.Ops))
	op, err := x.call(ctx, call, 0, map[string]string{fault.Header: string(call.Fault) + " " + token})
	if err != nil {
		return op, err
	}
	deadline := time.Now().Add(reportWait)
	for {
		if rep, ok := x.Proxies[0].Report(token); ok {
			ev.Fired, ev.Note = rep.Fired, rep.Note
			return op, nil
		}
		if time.Now().After(deadline) {
			ev.Note = "the call never reached the fault proxy"
			return op, nil
		}
		select {
		case <-ctx.Done():
			return op, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// faultStep does a fault step of its own (a dependency's restart or
// crash) through package fault's registry, and records it as an event.
func (x *execution) faultStep(ctx context.Context, step model.Step) error {
	do, ok := fault.Step(step.Fault)
	if !ok {
		return fmt.Errorf("stress: step %d: fault step %q is not supported", x.step+1, step.Fault)
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
