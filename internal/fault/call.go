package fault

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// A call fault is done to one call of a plan (Call.Fault): it sends the
// call itself through CallEnv, in whatever way its fault needs (through
// the proxy, with a table held locked, with the replica stopped), and
// says what it did. Each kind is one file of this package and one entry
// of the nemesis's callFaults (package fault/nemesis); model's registry
// (model.FaultKind) says where the kind stands in a plan and what it
// needs. The executor (package interp) knows no kind by name: its Nemesis
// (nemesis.Faults) looks the kind up there, and the executor records what
// it did as an event of the history.

// ErrInfrastructure marks a failure of the run itself (target, database
// or process not there), as opposed to a violation found in the service.
var ErrInfrastructure = errors.New("infrastructure failure")

// Replicas are the service's replicas when idemstress started them
// (process.Service), as call faults see them: counted from 0.
type Replicas interface {
	Addrs() []string
	Kill(i int) error
	Pause(i int) error
	Resume(i int) error
	// Restart stops replica i gracefully (or finds it down) and starts it
	// again, ready.
	Restart(ctx context.Context, i int) error
}

// CallEnv is what a call fault reaches in the run that executes it.
type CallEnv interface {
	Env
	// Send sends call to replica with extra headers (the tester's own,
	// such as the proxy's Header) and returns what it got back; its
	// error says the run cannot go on.
	Send(ctx context.Context, call model.Call, replica int, extra map[string]string) (model.Op, error)
	// Token is unique in the run to the call about to be sent: the
	// proxy files its report under it.
	Token() string
	// Proxy is the fault proxy in front of replica 0; nil when the run
	// has none.
	Proxy() *httpproxy.Proxy
	// EffectStall locks the last effect table, whose write a crash,
	// pause or db-error interrupts; nil when the contract has none.
	EffectStall() *dbstall.Stall
	// KeyStall locks the service's key table (key_table); nil when the
	// contract names none.
	KeyStall() *dbstall.Stall
	// Contract is the contract the run checks (its lease).
	Contract() model.Contract
	// DB is the PostgreSQL proxy between the service and its database;
	// nil when none stands there.
	DB() *pgproxy.Proxy
	// DBCall is the faulted call's tie to DB, by its markers, for as long
	// as the fault runs: its Trace, and SetAt to answer at its points
	// (hold, error, cut) without touching other calls. nil without DB.
	DBCall() *pgproxy.Call
	// DepCall is the faulted call's tie at the RESP proxy in front of the
	// dependency called name (process.dependencies), by the same
	// markers; nil when none stands there.
	DepCall(name string) *respproxy.Call
}

// CallOutcome is what a call fault did: the calls it sent (the faulted
// call first, then any retry it sent itself), whether it fired and, when
// not, why (a Note holds no times or PIDs).
type CallOutcome struct {
	Ops   []model.Op
	Fired bool
	// Held counts the requests the fault saw held back.
	Held int
	Note string
	// Down says the fault left replica 0 down (a crash): no call is
	// served until a restart step starts it again.
	Down bool
	// CutOff says the fault cut the call's action off at the end of its
	// first call (a crash that fired): a retry answered in_flight is
	// polled from then on, for the contract's recovery time.
	CutOff bool
}

// CallFault does one call fault. Its error says the run cannot go on;
// the ops sent before it are in the outcome all the same.
type CallFault func(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error)

// infrastructure marks err, of the fault called what, as the run's own
// failure, or is the context's end when that came first.
func infrastructure(ctx context.Context, what model.Fault, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %s: %w", ErrInfrastructure, what, err)
}

// needs is the error of a fault whose run lacks what it needs.
func needs(f model.Fault, what string) error { return NeedsError{f, what} }

// NeedsError says a fault's run lacks what it needs: the contract's
// doing, not the run's failure.
type NeedsError struct {
	f    model.Fault
	what string
}

func (e NeedsError) Error() string { return fmt.Sprintf("fault: %s needs %s", e.f, e.what) }
