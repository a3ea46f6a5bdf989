package stress

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/fault"
	"github.com/idemstress/idemstress/model"
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
	case call.Fault == model.FaultCrash:
		op, err = x.crashed(ctx, call, &ev)
	default:
		return fmt.Errorf("stress: step %d: fault %q of a call is not supported", x.step+1, call.Fault)
	}
	ev.End = x.now()
	ev.Ops = x.add([]model.Op{op})
	x.faults = append(x.faults, ev)
	return err
}

// proxied sends the call through the fault proxy of its replica, asking
// for the fault by header, and asks the proxy whether it fired.
func (x *execution) proxied(ctx context.Context, call model.Call, ev *model.FaultEvent) (model.Op, error) {
	if len(x.Proxies) == 0 {
		return model.Op{}, fmt.Errorf("stress: fault %s needs the fault proxy, and the run has none", call.Fault)
	}
	token := fmt.Sprintf("%s%d", x.ns, len(x.h))
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

// crashed sends the call to replica 0 with the last effect table
// write-locked, and SIGKILLs the replica once the call waits on that lock:
// the kill lands between the action's earlier writes and that one. The
// replica stays down until a restart step (the generator plans one).
func (x *execution) crashed(ctx context.Context, call model.Call, ev *model.FaultEvent) (model.Op, error) {
	if x.Service == nil || x.CrashStall == nil {
		return model.Op{}, fmt.Errorf("stress: fault crash needs a service that idemstress starts")
	}
	var op model.Op
	var callErr, killErr error
	rep, err := x.CrashStall.Hold(ctx, 1, func(ctx context.Context, answered *atomic.Int64) {
		op, callErr = x.call(ctx, call, 0, nil)
		if callErr == nil && op.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	}, func() { killErr = x.Service.Kill(0) })
	switch {
	case err != nil:
		return op, stoppedOr(ctx, fmt.Errorf("%w: crash: %w", errInfrastructure, err))
	case killErr != nil:
		return op, stoppedOr(ctx, fmt.Errorf("%w: crash: %w", errInfrastructure, killErr))
	}
	x.down = true
	ev.Fired, ev.Held = rep.Fired, rep.Blocked
	if rep.Fired {
		if x.cutOff == nil {
			x.cutOff = map[model.Action]int64{}
		}
		x.cutOff[x.Contract.ActionOf(call)] = op.End
	}
	if !rep.Fired {
		ev.Note = "the call never waited on its write to " + x.CrashStall.Table + ", so the replica was not killed"
		x.down = false
	}
	if callErr != nil && x.down {
		// A call cut short by the kill is an unknown outcome, not the
		// end of the run.
		callErr = nil
	}
	return op, callErr
}

// Liveness polling: how often a retry stuck in_flight after a crash is
// sent again, from first to last.
const (
	pollFirst = 20 * time.Millisecond
	pollMax   = 500 * time.Millisecond
)

// poll sends a retry answered in_flight again, with backoff, while the
// action it retries was cut off by a crash within the contract's recovery
// time: a correct service releases the key by then. Each answer joins the
// history; a last in_flight past the recovery time is what IDEM-012
// reports, with every answer seen.
func (x *execution) poll(ctx context.Context, call model.Call, op model.Op) error {
	since, ok := x.cutOff[x.Contract.ActionOf(call)]
	recovery := int64(x.Contract.Recovery)
	if !ok || recovery <= 0 || call.NoKey {
		return nil
	}
	for wait := pollFirst; op.Out.Kind == model.InFlight && op.Start-since <= recovery; wait = min(2*wait, pollMax) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		var err error
		op, err = x.call(ctx, call, 0, nil)
		x.add([]model.Op{op})
		if err != nil {
			return err
		}
	}
	return nil
}

// restart restarts every replica gracefully (or starts one a crash left
// down) and waits until each is ready.
func (x *execution) restart(ctx context.Context) error {
	if x.Service == nil {
		return fmt.Errorf("stress: step %d: restart needs a service that idemstress starts", x.step+1)
	}
	ev := model.FaultEvent{Kind: model.FaultRestart, Step: x.step, Start: x.now()}
	for i := range x.Service.Addrs() {
		if err := x.Service.Restart(ctx, i); err != nil {
			return stoppedOr(ctx, fmt.Errorf("%w: restart: %w", errInfrastructure, err))
		}
	}
	x.down = false
	x.closeIdle()
	ev.End, ev.Fired = x.now(), true
	x.faults = append(x.faults, ev)
	return nil
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
