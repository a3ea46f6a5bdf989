package nemesis

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// The whole nemesis of a run behind one value. The executor (package
// interp) holds a Nemesis, begins each plan with it, and asks the plan's
// faults to do each call fault, fault step and stalled burst; what a fault
// leaves behind (a replica down after a crash, an action cut off by one)
// is kept here, not by the executor, which records what each did as an
// event of the history. Faults is the real nemesis; the executor's tests
// give fakes.

// Nemesis is a run's nemesis as the executor holds it.
type Nemesis interface {
	// Begin readies the service for a plan (a replica that exited on its
	// own between plans is started again, every replica is up) and
	// returns the plan's faults, which send their calls through s.
	Begin(ctx context.Context, s Sender) (PlanFaults, error)
}

// Sender is the executor's side of a plan's faults: how a fault sends its
// call, and what the executor knows of the call under way.
type Sender interface {
	// Send sends call to replica with extra headers (the tester's own,
	// such as the proxy's Header) and returns what it got back; its
	// error says the run cannot go on.
	Send(ctx context.Context, call model.Call, replica int, extra map[string]string) (model.Op, error)
	// Token is unique in the run to the call about to be sent.
	Token() string
	// Contract is the contract the plan is checked against.
	Contract() model.Contract
	// DB is the PostgreSQL proxy between the service and its database;
	// nil when none stands there.
	DB() *pgproxy.Proxy
	// DBCall is the faulted call's tie to DB while its fault runs; nil
	// without DB.
	DBCall() *pgproxy.Call
	// DepCall is the faulted call's tie at the RESP proxy in front of the
	// dependency called name; nil when none stands there.
	DepCall(name string) *respproxy.Call
	// Restarted says a replica was started again: no call may be sent on
	// a kept-alive connection to the one that is gone.
	Restarted()
}

// PlanFaults are one plan's faults under way, and what they left behind.
type PlanFaults interface {
	// Call does the fault call carries (Call.Fault, this package's
	// registry), sending the call itself.
	Call(ctx context.Context, call model.Call) (fault.CallOutcome, error)
	// Step does a fault step: a restart of every replica, or a fault step
	// of this package's registry (StepKind names its kind).
	Step(ctx context.Context, step model.Step) (fault.Outcome, error)
	// Burst runs a burst of n calls, under the run's db-stall when it has
	// one; burst sends the calls (at, when not nil, is the hook of their
	// sessions at the database proxy; answered, when not nil, counts the
	// calls answered).
	Burst(ctx context.Context, n int, burst Burst) (BurstOutcome, error)
	// Down says a crash left replica 0 down and no restart has started it
	// since: no call is served.
	Down() bool
	// Poll sends again, through resend, a retry op answered in_flight
	// while its action, cut off by a crash, is within the contract's
	// recovery time, with backoff, until it is answered otherwise.
	Poll(ctx context.Context, call model.Call, op model.Op, resend func(context.Context) (model.Op, error)) error
	// Exit waits up to wait for a replica that exited on its own, starts
	// it again and says how it exited; false when none did. Its error
	// says the replica could not be started again.
	Exit(ctx context.Context, wait time.Duration) (process.Exit, bool, error)
	// Failure is a failure of the nemesis's own machinery during the plan
	// (a fault proxy that could not reach its replica); nil when none.
	Failure() error
	// End leaves the service as the next plan needs it: a replica a crash
	// left down is started again.
	End(ctx context.Context) error
}

// Burst sends a burst's calls (PlanFaults.Burst).
type Burst func(ctx context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64)

// BurstOutcome is what the db-stall nemesis did to a burst.
type BurstOutcome struct {
	// Kind is the nemesis that held the burst (model.FaultDBStall); ""
	// when none did, and then nothing else is set.
	Kind  model.Fault
	Fired bool
	// Held counts the requests seen held back.
	Held int
	// Released is when the nemesis let the burst go; zero when it never
	// held it.
	Released time.Time
	// Note says why it did not fire (no times or counts but the burst's).
	Note string
}

// ErrUnknownKind marks a fault kind this package does not do.
var ErrUnknownKind = errors.New("not supported")

// Service is the service's replicas that idemstress started
// (process.Service, through Processes), as the nemesis sees them.
type Service interface {
	fault.Replicas
	// Up starts every replica that is not running, and waits until each
	// is ready.
	Up(ctx context.Context) error
	// Revive starts again replica i, which exited on its own.
	Revive(ctx context.Context, i int) error
	// ExitWithin waits up to d for a replica that exited on its own.
	ExitWithin(ctx context.Context, d time.Duration) (process.Exit, bool)
	// Dependency is the started dependency called name, if there is one.
	Dependency(name string) (fault.Dependency, bool)
}

// Processes is svc as the nemesis sees it; nil when svc is.
func Processes(svc *process.Service) Service {
	if svc == nil {
		return nil
	}
	return processes{svc}
}

type processes struct{ *process.Service }

func (p processes) Dependency(name string) (fault.Dependency, bool) {
	if d := p.Service.Dependency(name); d != nil {
		return d, true
	}
	return nil, false
}

// Faults is the real nemesis: what the run's faults need, each nil when
// the contract plans nothing that needs it. One Faults serves every plan
// of a run at once; a plan's state is its own (Begin).
type Faults struct {
	// Service is the service's replicas when idemstress started them.
	Service Service
	// Proxies are the fault proxies in front of the replicas, one each.
	Proxies []*httpproxy.Proxy
	// EffectStall locks the last effect table, whose write a crash,
	// db-error or overrun interrupts.
	EffectStall *dbstall.Stall
	// KeyStall locks the service's key table, where a crash-key-record
	// crash lands.
	KeyStall *dbstall.Stall
	// Stall holds a write lock on an effect table while each burst is
	// released (db-stall where no database proxy stands).
	Stall *dbstall.Stall
	// Barrier holds each call of a burst at its first write in the
	// database proxy (db-stall where one stands); it wins over Stall.
	Barrier *dbstall.Barrier
}

// Begin readies the service for a plan and returns the plan's faults. A
// nil Faults does nothing.
func (f *Faults) Begin(ctx context.Context, s Sender) (PlanFaults, error) {
	if f == nil {
		f = &Faults{}
	}
	p := &planFaults{Faults: f, s: s}
	if f.Service == nil {
		return p, nil
	}
	// A replica that exited on its own after the last plan ended belongs
	// to no plan: it is started again with no event. A restart, crash or
	// dependency fault that a plan cut short (by the shrink budget) left
	// down must not meet this plan so either.
	if err := p.reviveStray(ctx); err != nil {
		return nil, err
	}
	if err := f.Service.Up(ctx); err != nil {
		return nil, stoppedOr(ctx, fmt.Errorf("%w: before the plan: %w", fault.ErrInfrastructure, err))
	}
	return p, nil
}

// planFaults is one plan's faults under way.
type planFaults struct {
	*Faults
	s Sender
	// down says a crash left replica 0 down.
	down bool
	// cutOff is when each action a crash interrupted was cut off.
	cutOff map[model.Action]int64
}

func (p *planFaults) Call(ctx context.Context, call model.Call) (fault.CallOutcome, error) {
	do, ok := Call(call.Fault)
	if !ok {
		return fault.CallOutcome{}, fmt.Errorf("fault %q of a call is %w", call.Fault, ErrUnknownKind)
	}
	out, err := do(ctx, planEnv{p}, call)
	if out.Down {
		p.down = true
	}
	if out.CutOff && len(out.Ops) > 0 {
		if p.cutOff == nil {
			p.cutOff = map[model.Action]int64{}
		}
		p.cutOff[p.s.Contract().ActionOf(call)] = out.Ops[0].End
	}
	return out, err
}

func (p *planFaults) Step(ctx context.Context, step model.Step) (fault.Outcome, error) {
	kind := StepKind(step)
	do, ok := Step(kind)
	if !ok {
		return fault.Outcome{}, fmt.Errorf("fault step %q is %w", kind, ErrUnknownKind)
	}
	out, err := do(ctx, planEnv{p}, step.Target)
	if errors.As(err, new(fault.NeedsError)) {
		return fault.Outcome{}, err
	} else if err != nil {
		return fault.Outcome{}, stoppedOr(ctx, fmt.Errorf("%w: %s: %w", fault.ErrInfrastructure, step, err))
	}
	if out.Up {
		p.down = false
		p.s.Restarted()
	}
	return out, nil
}

func (p *planFaults) Down() bool { return p.down }

func (p *planFaults) Failure() error {
	for _, x := range p.Proxies {
		if err := x.Failure(); err != nil {
			return err
		}
	}
	return nil
}

func (p *planFaults) End(ctx context.Context) error {
	if !p.down || p.Service == nil {
		return nil
	}
	// A crash the plan did not follow by a restart: the next plan starts
	// with every replica up.
	if err := p.Service.Restart(ctx, 0); err != nil {
		return stoppedOr(ctx, fmt.Errorf("%w: restart after a crash: %w", fault.ErrInfrastructure, err))
	}
	p.down = false
	p.s.Restarted()
	return nil
}

// planEnv is what a fault reaches of the plan under way (CallEnv, Env).
type planEnv struct{ p *planFaults }

func (e planEnv) Send(ctx context.Context, call model.Call, replica int, extra map[string]string) (model.Op, error) {
	return e.p.s.Send(ctx, call, replica, extra)
}

func (e planEnv) Token() string                       { return e.p.s.Token() }
func (e planEnv) Contract() model.Contract            { return e.p.s.Contract() }
func (e planEnv) DB() *pgproxy.Proxy                  { return e.p.s.DB() }
func (e planEnv) DBCall() *pgproxy.Call               { return e.p.s.DBCall() }
func (e planEnv) DepCall(name string) *respproxy.Call { return e.p.s.DepCall(name) }
func (e planEnv) EffectStall() *dbstall.Stall         { return e.p.EffectStall }
func (e planEnv) KeyStall() *dbstall.Stall            { return e.p.KeyStall }

func (e planEnv) Proxy() *httpproxy.Proxy {
	if len(e.p.Proxies) == 0 {
		return nil
	}
	return e.p.Proxies[0]
}

func (e planEnv) Replicas() fault.Replicas {
	if e.p.Service == nil {
		return nil
	}
	return e.p.Service
}

func (e planEnv) Dependency(name string) (fault.Dependency, bool) {
	if e.p.Service == nil {
		return nil, false
	}
	return e.p.Service.Dependency(name)
}

// stoppedOr is err, or the context's end when that came first.
func stoppedOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
