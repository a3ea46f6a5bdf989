package interp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// A replica that exits on its own during a plan (an unhandled error when
// a fault ended its database session, a panic) is a finding about the
// service, not a failure of the run: it becomes an event of the history
// (model.FaultExit, judged by checks as IDEM-018), the replica is started
// again, and the plan goes on.

// exitGrace bounds the wait for a replica to be seen gone after a call
// found it unreachable or got no answer: its socket closes as it dies, a
// moment before its exit is reaped.
const exitGrace = 500 * time.Millisecond

// exits records, as events of step, the replicas that exited on their own
// since the last look, waiting up to wait for the first; the nemesis
// starts each again. It reports whether there was one; its error says one could not
// be started again.
func (x *execution) exits(ctx context.Context, step int, wait time.Duration) (bool, error) {
	found := false
	for {
		e, ok, err := x.faults.Exit(ctx, wait)
		if !ok {
			x.looked = x.now()
			return found, nil
		}
		found, wait = true, 0
		ev := model.FaultEvent{Kind: model.FaultExit, Step: step, Start: int64(e.At.Sub(x.t0)), Fired: true,
			Note: fmt.Sprintf("replica %d %s; last output:\n%s", e.Replica, e.Status, e.Output)}
		ev.Ops = x.unanswered()
		if err != nil {
			return found, err
		}
		ev.End = x.now()
		x.h.Faults = append(x.h.Faults, ev)
	}
}

// unanswered are the calls that got no answer since the last look at the
// replicas, when they were all running: the calls an exit may have cut
// off or found the replica gone for. A call the target could not reach is
// marked as unanswered, not as the run's failure.
func (x *execution) unanswered() []int {
	var idx []int
	for i := range x.h.Ops {
		op := &x.h.Ops[i]
		if op.End < x.looked || op.Out.Err == "" && op.Out.Kind != "" {
			continue
		}
		if op.Out.Kind == "" {
			op.Out = model.Outcome{Kind: model.Unknown, Err: "replica exited on its own: not served"}
		}
		idx = append(idx, i)
	}
	return idx
}

// exitedUnderStep says whether a step's error is a replica's own exit,
// recorded as an event, rather than a failure of the run: a call that
// found the replica unreachable, a fault that found it gone.
func (x *execution) exitedUnderStep(ctx context.Context, err error) (bool, error) {
	if !errors.Is(err, ErrInfrastructure) || ctx.Err() != nil {
		return false, nil
	}
	return x.exits(ctx, x.step, exitGrace)
}

// lastStepUnanswered reports whether a call of the last step got no
// answer: the replica may be dying, and the next plan must not meet it
// so.
func (x *execution) lastStepUnanswered() bool {
	for i := len(x.h.Ops) - 1; i >= 0 && x.h.Ops[i].Step == x.step; i-- {
		if x.h.Ops[i].Out.Err != "" {
			return true
		}
	}
	return false
}

// lastStepCutOff reports whether a call of the last step got no answer
// that no proxy fault of its own explains (a lost reply, a dropped
// request): what a replica dying under it leaves.
func (x *execution) lastStepCutOff() bool {
	for i := len(x.h.Ops) - 1; i >= 0 && x.h.Ops[i].Step == x.step; i-- {
		op := x.h.Ops[i]
		if k, _ := faultkind.KindOf(op.Call.Fault); op.Out.Err != "" && !k.Proxy {
			return true
		}
	}
	return false
}

// exitsAtEnd looks for a replica that exited on its own once the plan's
// steps are done (waiting a moment when the last step went unanswered, or
// a fault proxy could not reach its replica), so that the exit is this
// plan's finding and the next plan meets every replica up. A proxy's
// failure with no exit behind it is the run's.
func (x *execution) exitsAtEnd(ctx context.Context) error {
	failed := x.faults.Failure()
	wait := time.Duration(0)
	if failed != nil || x.lastStepUnanswered() {
		wait = exitGrace
	}
	exited, err := x.exits(ctx, x.step, wait)
	switch {
	case err != nil:
		return err
	case failed != nil && !exited && !x.anyExit():
		// A call the proxy could not forward got no answer through no
		// fault of the target's: the plan proves nothing.
		return stoppedOr(ctx, fmt.Errorf("%w: %w", ErrInfrastructure, failed))
	}
	return nil
}

// anyExit reports whether a replica exited on its own during the plan:
// a fault proxy that could not reach it then found it gone.
func (x *execution) anyExit() bool {
	return slices.ContainsFunc(x.h.Faults, func(ev model.FaultEvent) bool { return ev.Kind == model.FaultExit })
}

// stoppedOr is err, or the context's end when that came first.
func stoppedOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
