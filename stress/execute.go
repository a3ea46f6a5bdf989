package stress

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/target"
)

// errInfrastructure marks a failure of the run itself (target or database
// not there), as opposed to a violation found in the target.
var errInfrastructure = errors.New("infrastructure failure")

// Execute sends a plan's calls to the target, one step after the other, in
// namespace ns, and returns what each call got back. Times are measured from
// t0 on the monotonic clock. It fails only when the run itself cannot go on:
// the context ended or the target is not there.
func Execute(ctx context.Context, tgt target.Target, c model.Contract, ns model.Namespace, plan model.Plan, t0 time.Time) (model.History, error) {
	var h model.History
	for i, step := range plan.Steps {
		if step.Kind != model.StepCall {
			return h, fmt.Errorf("stress: step %d: kind %q is not supported yet", i+1, step.Kind)
		}
		for _, call := range step.Calls {
			op, err := do(ctx, tgt, c, ns, call, t0)
			if err != nil {
				return h, err
			}
			op.Step = i
			h = append(h, op)
		}
	}
	return h, nil
}

func do(ctx context.Context, tgt target.Target, c model.Contract, ns model.Namespace, call model.Call, t0 time.Time) (model.Op, error) {
	tag := ns.Tag(c.KeyScope, call)
	body := model.RenderTagged(c.Payload, tag, call.Variant, call.Encoding)
	req := target.Request{Tenant: ns.Tenant(call.Tenant), Body: body, Tag: tag}
	if call.NoKey {
		req.NoKey = true
	} else {
		req.Key = ns.Key(call.Key)
	}
	op := model.Op{Call: call, Body: body, Start: int64(time.Since(t0))}
	resp, err := tgt.Do(ctx, req)
	op.End = int64(time.Since(t0))
	switch {
	case ctx.Err() != nil:
		return op, ctx.Err()
	case errors.Is(err, target.ErrUnreachable):
		return op, fmt.Errorf("%w: %w", errInfrastructure, err)
	case err != nil:
		op.Out = model.Outcome{Kind: model.Unknown, Err: err.Error()}
	default:
		op.Out = model.Outcome{
			Kind:   c.Classify(true, resp.Status, resp.ID != ""),
			Status: resp.Status,
			ID:     resp.ID,
		}
	}
	return op, nil
}
