package interp

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
)

// The faults done to the service's processes: a crash while a call is in
// flight, a pause while its retry goes to another replica, a restart step,
// and the liveness polling after a crash.

// pauseHold bounds how long a paused replica stays stopped while the
// retry sent to another replica waits for its answer.
const pauseHold = 500 * time.Millisecond

// paused sends the call to replica 0 with the last effect table
// write-locked. Once the call waits on that lock, replica 0 is SIGSTOPped
// with its transaction open, and the same call is sent again to replica
// 1: a client's retry to another replica. Once the retry is answered, or
// pauseHold passes (it may wait on what the paused request holds),
// replica 0 is SIGCONTed and the lock released; both calls finish, and
// both join the history.
func (x *execution) paused(ctx context.Context, call model.Call, ev *model.FaultEvent) ([]model.Op, error) {
	if x.Service == nil || x.CrashStall == nil || len(x.Service.Addrs()) < 2 {
		return nil, fmt.Errorf("stress: fault pause needs two replicas of a service that idemstress starts")
	}
	var first, second model.Op
	var firstErr, secondErr, pauseErr, resumeErr error
	var retried chan struct{}
	rep, err := x.CrashStall.Hold(ctx, 1, func(ctx context.Context, answered *atomic.Int64) {
		first, firstErr = x.call(ctx, call, 0, nil)
		if firstErr == nil {
			answered.Add(1)
		}
	}, func() {
		if pauseErr = x.Service.Pause(0); pauseErr != nil {
			return
		}
		retried = make(chan struct{})
		go func() {
			defer close(retried)
			retry := call
			retry.Fault = model.FaultNone
			second, secondErr = x.call(ctx, retry, 1, nil)
		}()
		select {
		case <-retried:
		case <-time.After(pauseHold):
		}
		resumeErr = x.Service.Resume(0)
	})
	ops := []model.Op{first}
	if retried != nil {
		<-retried
		ops = append(ops, second)
	}
	if err = cmp.Or(err, pauseErr, resumeErr); err != nil {
		return ops, stoppedOr(ctx, fmt.Errorf("%w: pause: %w", ErrInfrastructure, err))
	}
	ev.Fired, ev.Held = rep.Fired, rep.Blocked
	if !rep.Fired {
		ev.Note = unfiredCrash(first, x.CrashStall.Table, "paused")
	}
	return ops, cmp.Or(firstErr, secondErr)
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
	send := func(ctx context.Context, answered *atomic.Int64) {
		op, callErr = x.call(ctx, call, 0, nil)
		if callErr == nil && op.Out.Kind != model.Unknown {
			answered.Add(1)
		}
	}
	kill := func() { killErr = x.Service.Kill(0) }
	table := x.CrashStall.Table
	var rep fault.StallReport
	var err error
	if call.Fault == model.FaultCrashKeyRecord {
		if x.KeyStall == nil {
			return model.Op{}, fmt.Errorf("stress: fault %s needs key_table", call.Fault)
		}
		table = x.KeyStall.Table + " after " + table
		rep, err = x.CrashStall.HoldAfter(ctx, *x.KeyStall, send, kill)
	} else {
		rep, err = x.CrashStall.Hold(ctx, 1, send, kill)
	}
	switch {
	case err != nil:
		return op, stoppedOr(ctx, fmt.Errorf("%w: crash: %w", ErrInfrastructure, err))
	case killErr != nil:
		return op, stoppedOr(ctx, fmt.Errorf("%w: crash: %w", ErrInfrastructure, killErr))
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
		ev.Note = unfiredCrash(op, table, "killed")
		x.down = false
	}
	if callErr != nil && x.down {
		// A call cut short by the kill is an unknown outcome, not the
		// end of the run.
		callErr = nil
	}
	return op, callErr
}

// unfiredCrash says why a crash or pause (done: "killed", "paused") did
// not fire on the call answered op: a call the service refuses writes
// nothing to interrupt.
func unfiredCrash(op model.Op, table, done string) string {
	if op.Out.Status >= 400 && op.Out.Status < 500 {
		return fmt.Sprintf("the service answered %d before it wrote to %s (a call it refuses writes nothing), so the replica was not %s", op.Out.Status, table, done)
	}
	return "the call never waited on its write to " + table + ", so the replica was not " + done
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
			return stoppedOr(ctx, fmt.Errorf("%w: restart: %w", ErrInfrastructure, err))
		}
	}
	x.down = false
	x.closeIdle()
	ev.End, ev.Fired = x.now(), true
	x.h.Faults = append(x.h.Faults, ev)
	return nil
}
