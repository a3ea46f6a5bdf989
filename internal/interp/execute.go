package interp

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
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/fault/nemesis"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// ErrInfrastructure marks a failure of the run itself (target or database
// not there), as opposed to a violation found in the client.
var ErrInfrastructure = fault.ErrInfrastructure

// Executor runs plans against a client, under a contract.
type Executor struct {
	// Spec is the contract the plans run under, as a run holds it (with
	// its defaults): how a call is rendered and sent (Contract, HTTP's
	// body encoding) is read from it, never copied out field by field.
	contract.Spec
	// Target is where the calls go.
	Target client.Target
	// Nemesis is the run's nemesis (package fault's Faults: the fault
	// proxies, the service's replicas, the stalls): every planned fault
	// and db-stall is done through it, and it keeps what they left
	// behind. nil: the plan's calls and bursts go as they are.
	Nemesis nemesis.Nemesis
	// DB is the PostgreSQL proxy between the service and its database,
	// when one stands there: every call is tied to it by its markers
	// while it is sent, and a call fault reaches it (fault.CallEnv.DB).
	DB *pgproxy.Proxy
	// OnTrace, when set, receives the points an unfaulted call passed at
	// DB (its pgproxy.Call.Trace), once the call is answered: what the
	// crash points of calls of its shape are learned from.
	OnTrace func(call model.Call, trace []pgproxy.Step)
	// Deps are the RESP proxies in front of the service's dependencies
	// that speak RESP, by the dependency's name: every call is tied there
	// too (deps.go), and a call fault reaches its tie (fault.CallEnv.DepCall).
	Deps map[string]*respproxy.Proxy
	// OnDepTrace, when set, receives the points an unfaulted call passed
	// at each of Deps, as OnTrace does for DB.
	OnDepTrace func(call model.Call, dep string, trace []respproxy.Step)
}

// Execute sends a plan's calls to the target, one step after the other, in
// namespace ns, and returns its history: what each call got back, and
// every fault the plan planned as an event on the same clock. The calls of a burst are
// released together; every other call waits for the one before. Times are
// measured from t0 on the monotonic clock. It fails only when the run itself
// cannot go on: the context ended or the target or database is not there.
func (e Executor) Execute(ctx context.Context, ns model.Namespace, plan model.Plan, t0 time.Time) (model.History, error) {
	x := execution{Executor: e, ns: ns, t0: t0}
	faults, err := x.nemesis().Begin(ctx, sender{&x})
	if err != nil {
		return x.h, err
	}
	x.faults = faults
	x.looked = x.now()
	for i, step := range plan.Steps {
		// A replica that exited on its own since the last step is started
		// again before this one; its event belongs to the last step. When
		// a call of the last step got no answer by no proxy fault's doing
		// (a db-error's call whose replica dies of it), the replica may
		// still be dying: wait a moment for its exit, or this step's calls
		// meet it dying and read as hangs (IDEM-014), and the call it cut
		// off is not filed under it.
		wait := time.Duration(0)
		if i > 0 && !x.faults.Down() && x.lastStepCutOff() {
			wait = exitGrace
		}
		x.step = i
		if _, err := x.exits(ctx, max(i-1, 0), wait); err != nil {
			return x.h, err
		}
		if x.faults.Down() && step.Kind != model.StepRestart && step.Kind != model.StepFault {
			x.unserved(step.Calls)
			continue
		}
		var err error
		switch step.Kind {
		case model.StepCall:
			err = x.sequential(ctx, step.Calls)
		case model.StepBurst:
			err = x.stalled(ctx, step.Calls)
		case model.StepRestart, model.StepFault:
			err = x.faultStep(ctx, step)
		default:
			err = fmt.Errorf("interp: step %d: kind %q is not supported", i+1, step.Kind)
		}
		if exited, xerr := x.exitedUnderStep(ctx, err); xerr != nil || exited {
			err = xerr
		}
		if err != nil {
			return x.h, err
		}
	}
	if err := x.exitsAtEnd(ctx); err != nil {
		return x.h, err
	}
	return x.h, x.faults.End(ctx)
}

// nemesis is the executor's nemesis, or one that does nothing.
func (e Executor) nemesis() nemesis.Nemesis {
	if e.Nemesis == nil {
		return (*nemesis.Faults)(nil)
	}
	return e.Nemesis
}

// execution is one plan's execution under way: the history and the fault
// events so far.
type execution struct {
	Executor
	ns   model.Namespace
	t0   time.Time
	step int
	h    model.History
	// faults are the plan's faults under way (Executor.Nemesis).
	faults nemesis.PlanFaults
	// looked is when the replicas were last seen running (exits).
	looked int64
	// keyless counts the keyless calls sent so far: each is a create of
	// its own, with unique values of its own (model.Contract.KeylessUnique).
	keyless int
	// tied is the faulted call's tie at DB while its fault runs: the
	// calls the fault sends go under it.
	tied *pgproxy.Call
	// depTied is the faulted call's ties at Deps while its fault runs.
	depTied map[string]*respproxy.Call
}

// unserved records calls made while a crash left the replica down and no
// restart step has started it again (a plan shrunk without its restart):
// they are answered by nobody, and the crash's event lists them among the
// calls it touched, so that no check blames the service for the missing
// answer.
func (x *execution) unserved(calls []model.Call) {
	ops := make([]model.Op, len(calls))
	for j, call := range calls {
		_, ops[j] = x.request(x.ns, call, j)
		ops[j].Start, ops[j].End = x.now(), x.now()
		ops[j].Out = model.Outcome{Kind: model.Unknown, Err: "replica down after a crash, with no restart since"}
	}
	idx := x.add(ops)
	for i := len(x.h.Faults) - 1; i >= 0; i-- {
		if ev := &x.h.Faults[i]; faultkind.Crashes(ev.Kind) && ev.Fired {
			ev.Ops = append(ev.Ops, idx...)
			return
		}
	}
}

// now is the time since the run began, the clock of the history.
func (x *execution) now() int64 { return int64(time.Since(x.t0)) }

// add appends the ops of the current step and returns their indexes.
func (x *execution) add(ops []model.Op) []int {
	idx := make([]int, len(ops))
	for j := range ops {
		ops[j].Step = x.step
		idx[j] = len(x.h.Ops)
		x.h.Ops = append(x.h.Ops, ops[j])
	}
	return idx
}

// request is what the target is sent for a call, and the op that records it.
func (x *execution) request(ns model.Namespace, call model.Call, replica int) (client.Request, model.Op) {
	// A broken call's body breaks the payload rule it names.
	e, c := x.Executor, x.Contract.Breaking(call.Broken)
	tag := identifiers.Tag(ns, c, call)
	req := client.Request{Tenant: identifiers.SentTenant(c, ns, call.Tenant), Tag: tag, Replica: replica, Noise: call.Noise}
	if call.NoKey {
		req.NoKey = true
	} else {
		req.Key = identifiers.SentKey(c, ns, call.Key)
	}
	// The op keeps the payload as judged: a key or tenant the body carries
	// is identity, not payload (payloads.Send).
	id := payloads.Identity{Tenant: req.Tenant, Key: req.Key, Tag: tag, NoKey: req.NoKey}
	if call.UniqueOf != "" {
		// Another action's unique values: those its own calls send.
		id.Unique = identifiers.Tag(ns, c, model.Call{Tenant: call.Tenant, Key: call.UniqueOf})
	}
	if call.NoKey && c.KeylessCreates && len(c.Unique) > 0 {
		// The tag of a keyless call names its tenant only, shared by
		// every keyless create of it: its unique values need more.
		x.keyless++
		id.Unique = payloads.KeylessUnique(c, tag, x.keyless)
	}
	if e.HTTP.Body == client.BodyForm { // target.body: form
		req.Body = payloads.SendForm(c, id, call.Variant, call.Encoding)
		return req, model.Op{Call: call, Body: payloads.RenderFormAs(c, id, call.Variant, call.Encoding)}
	}
	req.Body = payloads.Send(c, id, call.Variant, call.Encoding)
	return req, model.Op{Call: call, Body: payloads.RenderAs(c, id, call.Variant, call.Encoding)}
}

// outcome records what a call got back; err is an infrastructure failure.
func outcome(ctx context.Context, c model.Contract, op *model.Op, resp client.Response, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, client.ErrUnreachable):
		// Recorded all the same: a replica that exited on its own makes
		// it a call the exit touched, not the run's failure (exits).
		op.Out = model.Outcome{Kind: model.Unknown, Err: err.Error()}
		return fmt.Errorf("%w: %w", ErrInfrastructure, err)
	case err != nil:
		op.Out = model.Outcome{Kind: model.Unknown, Err: err.Error()}
	default:
		r := reference.Read(c, model.Answer{Status: resp.Status, Body: resp.Body, ID: resp.ID})
		op.Out = model.Outcome{Kind: r.Kind, Status: resp.Status, ID: r.ID, Body: model.Excerpt(resp.Body, model.AnswerKept)}
	}
	return nil
}

func (x *execution) sequential(ctx context.Context, calls []model.Call) error {
	for _, call := range calls {
		if call.Fault != model.FaultNone {
			if err := x.faulty(ctx, call); err != nil {
				return err
			}
			continue
		}
		op, err := x.call(ctx, call, 0, nil)
		x.add([]model.Op{op})
		if err != nil {
			return err
		}
		// A retry answered in_flight while a crash's cut-off action
		// recovers is sent again until it is answered otherwise.
		if err := x.faults.Poll(ctx, call, op, func(ctx context.Context) (model.Op, error) {
			op, err := x.call(ctx, call, 0, nil)
			x.add([]model.Op{op})
			return op, err
		}); err != nil {
			return err
		}
	}
	return nil
}

// call sends one call to a replica, with extra headers for the tester's
// own machinery, and records what it got back.
func (x *execution) call(ctx context.Context, call model.Call, replica int, extra map[string]string) (model.Op, error) {
	req, op := x.request(x.ns, call, replica)
	req.Extra = extra
	var tied *pgproxy.Call
	var depTied map[string]*respproxy.Call
	if x.tied == nil && x.depTied == nil {
		var untie, untieDeps func()
		tied, untie = x.tie(call)
		defer untie()
		depTied, untieDeps = x.tieDeps(call)
		defer untieDeps()
	}
	op.Start = x.now()
	resp, err := x.Target.Do(ctx, req)
	op.End = x.now()
	if tied != nil && x.OnTrace != nil && err == nil {
		x.OnTrace(call, tied.Trace())
	}
	if err == nil {
		x.depTraces(call, depTied)
	}
	return op, outcome(ctx, x.Contract, &op, resp, err)
}

// burst releases every call at once, call i to replica i: through the
// target's own synchronised release when it has one, else one goroutine a
// call behind a start barrier. Everything a call needs is built before the
// release (rapid's draws are not safe to share between goroutines).
//
// at, when set, is the hook of every call's sessions at the database
// proxy while the burst runs (the db-stall barrier's).
func (x *execution) burst(ctx context.Context, ns model.Namespace, calls []model.Call, t0 time.Time, answered *atomic.Int64, at func(pgproxy.Point) pgproxy.Action) ([]model.Op, error) {
	e := x.Executor
	reqs := make([]client.Request, len(calls))
	ops := make([]model.Op, len(calls))
	for i, call := range calls {
		reqs[i], ops[i] = x.request(ns, call, i)
		// Calls of one action share their markers: the first tied takes
		// every session of the action (pgproxy.Proxy.Tie).
		tied, untie := x.tie(call)
		defer untie()
		if tied != nil && at != nil {
			tied.SetAt(at)
		}
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
					failed = cmp.Or(failed, fmt.Errorf("%w: the target panicked: %v", ErrInfrastructure, p))
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
