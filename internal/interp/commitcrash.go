package interp

import (
	"context"
	"fmt"
	"time"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
)

// crashedAfterCommit sends the call to replica 0 through its fault proxy,
// which reads the service's complete answer and withholds it (as for a
// lost reply); once the client's call has ended so, the replica is
// SIGKILLed. The kill lands after the service did everything it does
// before answering (for a service that writes its effects and its key
// record in one transaction: after the commit) and before its client
// heard anything; the retry after the restart must replay. The fault
// fires when the service answered 2xx, the work done. The replica stays
// down until a restart step (the generator plans one).
func (x *execution) crashedAfterCommit(ctx context.Context, call model.Call, ev *model.FaultEvent) (model.Op, error) {
	if x.Service == nil || len(x.Proxies) == 0 {
		return model.Op{}, fmt.Errorf("stress: fault %s needs a service that idemstress starts, behind the fault proxy", call.Fault)
	}
	token := fmt.Sprintf("%s%d", x.ns, len(x.h.Ops))
	op, err := x.call(ctx, call, 0, map[string]string{fault.Header: fault.LoseReply + " " + token})
	if err != nil {
		return op, err
	}
	rep, ok := x.proxyReport(ctx, token)
	if ctx.Err() != nil {
		return op, ctx.Err()
	}
	if err := x.Service.Kill(0); err != nil {
		return op, stoppedOr(ctx, fmt.Errorf("%w: crash: %w", ErrInfrastructure, err))
	}
	x.down = true
	switch {
	case !ok:
		ev.Note = "the call never reached the fault proxy"
	case !rep.Fired:
		ev.Note = rep.Note
	case rep.Status < 200 || rep.Status > 299:
		ev.Note = fmt.Sprintf("the service answered %d, so no work of the call's had committed when the replica was killed", rep.Status)
	default:
		ev.Fired = true
		if x.cutOff == nil {
			x.cutOff = map[model.Action]int64{}
		}
		x.cutOff[x.Contract.ActionOf(call)] = op.End
	}
	return op, nil
}

// proxyReport waits, bounded by reportWait, for the report of the call
// with token from replica 0's fault proxy.
func (x *execution) proxyReport(ctx context.Context, token string) (fault.ProxyReport, bool) {
	deadline := time.Now().Add(reportWait)
	for {
		if rep, ok := x.Proxies[0].Report(token); ok {
			return rep, true
		}
		if time.Now().After(deadline) {
			return fault.ProxyReport{}, false
		}
		select {
		case <-ctx.Done():
			return fault.ProxyReport{}, false
		case <-time.After(time.Millisecond):
		}
	}
}
