package stress

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/fault"
	"github.com/idemstress/idemstress/model"
)

// errInfrastructure marks a failure of the run itself (target or database
// not there), as opposed to a violation found in the client.
var errInfrastructure = errors.New("infrastructure failure")

// Executor runs plans against a client.
type Executor struct {
	Target   client.Target
	Contract model.Contract
	// Stall, when set, holds a write lock on an effect table while each
	// burst is released (the db-stall nemesis).
	Stall *fault.Stall
}

// Faults counts the faults a plan's execution planned and the ones that
// fired; a case whose faults did not all fire is inconclusive. Held counts
// the requests the db-stall nemesis saw waiting on its lock.
type Faults struct{ Planned, Fired, Held int }

// Execute sends a plan's calls to the target, one step after the other, in
// namespace ns, and returns what each call got back. The calls of a burst
// are released together; every other call waits for the one before. Times
// are measured from t0 on the monotonic clock. It fails only when the run
// itself cannot go on: the context ended or the target or database is not
// there.
func (e Executor) Execute(ctx context.Context, ns model.Namespace, plan model.Plan, t0 time.Time) (model.History, Faults, error) {
	var h model.History
	var faults Faults
	for i, step := range plan.Steps {
		var ops []model.Op
		var err error
		switch step.Kind {
		case model.StepCall:
			ops, err = e.sequential(ctx, ns, step.Calls, t0)
		case model.StepBurst:
			ops, err = e.stalled(ctx, ns, step.Calls, t0, &faults)
		default:
			return h, faults, fmt.Errorf("stress: step %d: kind %q is not supported", i+1, step.Kind)
		}
		for j := range ops {
			ops[j].Step = i
		}
		h = append(h, ops...)
		if err != nil {
			return h, faults, err
		}
	}
	return h, faults, nil
}

// request is what the target is sent for a call, and the op that records it.
func request(c model.Contract, ns model.Namespace, call model.Call, replica int) (client.Request, model.Op) {
	tag := ns.Tag(c, call)
	body := c.Render(tag, call.Variant, call.Encoding)
	req := client.Request{Tenant: ns.Tenant(call.Tenant), Body: body, Tag: tag, Replica: replica, Noise: call.Noise}
	if call.NoKey {
		req.NoKey = true
	} else {
		req.Key = c.SentKey(ns, call.Key)
	}
	return req, model.Op{Call: call, Body: body}
}

// outcome records what a call got back; err is an infrastructure failure.
func outcome(ctx context.Context, c model.Contract, op *model.Op, resp client.Response, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, client.ErrUnreachable):
		return fmt.Errorf("%w: %w", errInfrastructure, err)
	case err != nil:
		op.Out = model.Outcome{Kind: model.Unknown, Err: err.Error()}
	default:
		op.Out = model.Outcome{Kind: c.Classify(true, resp.Status, resp.ID != ""), Status: resp.Status, ID: resp.ID,
			Body: model.Excerpt(resp.Body, model.AnswerKept)}
	}
	return nil
}

func (e Executor) sequential(ctx context.Context, ns model.Namespace, calls []model.Call, t0 time.Time) ([]model.Op, error) {
	ops := make([]model.Op, 0, len(calls))
	for _, call := range calls {
		req, op := request(e.Contract, ns, call, 0)
		op.Start = int64(time.Since(t0))
		resp, err := e.Target.Do(ctx, req)
		op.End = int64(time.Since(t0))
		if err := outcome(ctx, e.Contract, &op, resp, err); err != nil {
			return ops, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// stalled runs a burst, under the db-stall nemesis when there is one.
func (e Executor) stalled(ctx context.Context, ns model.Namespace, calls []model.Call, t0 time.Time, faults *Faults) ([]model.Op, error) {
	if e.Stall == nil {
		return e.burst(ctx, ns, calls, t0, nil)
	}
	var ops []model.Op
	var burstErr error
	faults.Planned++
	report, err := e.Stall.Run(ctx, len(calls), func(ctx context.Context, answered *atomic.Int64) {
		ops, burstErr = e.burst(ctx, ns, calls, t0, answered)
	})
	if err != nil {
		return ops, cmp.Or(ctx.Err(), fmt.Errorf("%w: db-stall: %w", errInfrastructure, err))
	}
	if report.Fired {
		faults.Fired++
	}
	faults.Held += report.Blocked
	return ops, burstErr
}

// burst releases every call at once, call i to replica i: through the
// target's own synchronised release when it has one, else one goroutine a
// call behind a start barrier. Everything a call needs is built before the
// release (rapid's draws are not safe to share between goroutines).
func (e Executor) burst(ctx context.Context, ns model.Namespace, calls []model.Call, t0 time.Time, answered *atomic.Int64) ([]model.Op, error) {
	reqs := make([]client.Request, len(calls))
	ops := make([]model.Op, len(calls))
	for i, call := range calls {
		reqs[i], ops[i] = request(e.Contract, ns, call, i)
	}
	var failed error
	if b, ok := e.Target.(client.Burster); ok {
		for i, r := range b.Burst(ctx, reqs, answered) {
			ops[i].Start, ops[i].End = int64(r.Sent.Sub(t0)), int64(r.Done.Sub(t0))
			if r.Sent.IsZero() {
				ops[i].Start = ops[i].End
			}
			failed = cmp.Or(failed, outcome(ctx, e.Contract, &ops[i], r.Response, r.Err))
		}
		return ops, failed
	}
	start := make(chan struct{})
	var g errgroup.Group
	var mu sync.Mutex
	for i := range reqs {
		g.Go(func() (err error) {
			defer func() {
				// A Go target that panics must not take the process down
				// from a goroutine of ours: the run stops instead.
				if p := recover(); p != nil {
					mu.Lock()
					failed = cmp.Or(failed, fmt.Errorf("%w: the target panicked: %v", errInfrastructure, p))
					mu.Unlock()
				}
			}()
			<-start
			ops[i].Start = int64(time.Since(t0))
			resp, err := e.Target.Do(ctx, reqs[i])
			ops[i].End = int64(time.Since(t0))
			if err == nil && answered != nil {
				answered.Add(1)
			}
			if err := outcome(ctx, e.Contract, &ops[i], resp, err); err != nil {
				mu.Lock()
				failed = cmp.Or(failed, err)
				mu.Unlock()
			}
			return nil
		})
	}
	close(start)
	_ = g.Wait()
	return ops, failed
}
