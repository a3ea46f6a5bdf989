// Package faultkind is the registry of the fault kinds a plan may carry:
// where each stands in a plan, what it needs (the proxy, the service's
// processes, the database, a dependency), which crash or are transient, the
// sets of them the generator and the loader read, the replica stops a
// history's faults leave, and the tally of faults planned and fired. The
// Fault names and the FaultEvent a history records are internal/model's;
// doing a fault is internal/fault's.
package faultkind

import (
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model"
)

// FaultKind is one entry of the registry of fault kinds a plan may carry:
// where the fault stands in a plan and what it needs to happen. The
// generator, the contract loader, the case-file reader and the executor's
// dispatch all read it, so a new kind is one entry here and one file of
// package fault (with its line in that package's registry) that does it.
type FaultKind struct {
	Name model.Fault
	// Scope says where the fault stands in a plan: on one call (Call.Fault),
	// or as a step of its own (StepRestart, StepFault).
	Scope FaultScope
	// Needs is what must exist for the fault to fire.
	Needs FaultNeed
	// Proxy: it is done through the fault proxy in front of each replica,
	// so it needs an HTTP target.
	Proxy bool
	// AtWrite: it lands while the call waits on its write to the last
	// effect table the contract gives as a table (not a query).
	AtWrite bool
	// FirstCall: it acts on an action's first writes, which a replay does
	// not make, so the generator keeps it only on an action's first call.
	FirstCall bool
	// Crashes: it SIGKILLs the call's replica, which stays down until a
	// restart step (the generator plans one after it).
	Crashes bool
	// KeyTable: it lands at the service's write to its own key record, so
	// it needs key_table.
	KeyTable bool
	// Replicas is the fewest replicas it needs (0: one).
	Replicas int
	// Lease: it holds the call past the contract's lease, so it needs one.
	Lease bool
	// AtPoint: it lands at a point of the call's database work that the
	// plan names (Call.Point), at the PostgreSQL proxy idemstress puts
	// between the service and its database; the points are learned from
	// the service's unfaulted calls.
	AtPoint bool
	// Coded: the plan names the failure it deals (Call.Point holds a
	// SQLSTATE, as "40001"), drawn from the failures the run can deal
	// (gen.World.Codes), so that a plan replays and shrinks with the
	// failure it had.
	Coded bool
	// Transient: it fails the call's work once, as a passing failure of
	// a store the service uses would (db-error, dep-error); the service
	// answers 5xx and the contract's errors: policy says what a retry
	// gets (checks: IDEM-014).
	Transient bool
	// Retried: it leaves its call's fate open (a crash, a transient error,
	// a lost reply), and what the service does next is the point, so the
	// generator mostly follows the call by a retry of the same action
	// (after the restart that follows a crash), and the search deals it so.
	Retried bool
}

// FaultScope is where a fault stands in a plan.
type FaultScope int

const (
	// OnCall: a call carries it (Call.Fault).
	OnCall FaultScope = iota
	// AsStep: it is a step of its own, with no calls.
	AsStep
)

// FaultNeed is what a fault needs to fire.
type FaultNeed string

const (
	// NeedsProxy: the fault proxy in front of each replica (an HTTP target).
	NeedsProxy FaultNeed = "proxy"
	// NeedsService: a service that idemstress starts (process:).
	NeedsService FaultNeed = "service"
	// NeedsDependency: a dependency that idemstress starts beside the
	// service (process.dependencies); a step names it (Step.Target), a
	// call fault (dep-error) names it in its Call.Point.
	NeedsDependency FaultNeed = "dependency"
	// NeedsDatabase: an effect table of the service's to wait on (its
	// database sessions are what the fault ends), not its processes.
	NeedsDatabase FaultNeed = "database"
)

// faultKinds is the registry, in the order contracts and reports list
// them. db-stall is not here: it is set around every burst (db_stall:),
// never planned.
var faultKinds = []FaultKind{
	{Name: model.FaultLoseReply, Needs: NeedsProxy, Proxy: true, Retried: true},
	{Name: model.FaultDropRequest, Needs: NeedsProxy, Proxy: true},
	{Name: model.FaultDoubleDelivery, Needs: NeedsProxy, Proxy: true},
	{Name: model.FaultDelay, Needs: NeedsProxy, Proxy: true},
	{Name: model.FaultRestart, Scope: AsStep, Needs: NeedsService},
	{Name: model.FaultCrash, Needs: NeedsService, AtWrite: true, FirstCall: true, Crashes: true, Retried: true},
	{Name: model.FaultCrashKeyRecord, Needs: NeedsService, AtWrite: true, FirstCall: true, Crashes: true, KeyTable: true, Retried: true},
	{Name: model.FaultCrashAfterCommit, Needs: NeedsService, Proxy: true, FirstCall: true, Crashes: true, Retried: true},
	{Name: model.FaultCrashAt, Needs: NeedsService, FirstCall: true, Crashes: true, AtPoint: true, Retried: true},
	{Name: model.FaultPause, Needs: NeedsService, AtWrite: true, FirstCall: true, Replicas: 2},
	{Name: model.FaultPauseKeyRecord, Needs: NeedsService, AtWrite: true, FirstCall: true, KeyTable: true, Replicas: 2},
	{Name: model.FaultDBError, Needs: NeedsDatabase, AtWrite: true, FirstCall: true, Coded: true, Transient: true, Retried: true},
	{Name: model.FaultSlowOriginal, Needs: NeedsDatabase, AtWrite: true, FirstCall: true, Lease: true},
	{Name: model.FaultDepRestart, Scope: AsStep, Needs: NeedsDependency},
	{Name: model.FaultDepCrash, Scope: AsStep, Needs: NeedsDependency},
	{Name: model.FaultDepError, Needs: NeedsDependency, FirstCall: true, Coded: true, Transient: true, Retried: true},
}

// KindOf is the registry's entry for fault f, and whether it has one.
func KindOf(f model.Fault) (FaultKind, bool) {
	for _, k := range faultKinds {
		if k.Name == f {
			return k, true
		}
	}
	return FaultKind{}, false
}

// Transient reports whether fault f fails its call's work once, as a
// passing failure of one of the service's stores would (FaultKind.Transient).
func Transient(f model.Fault) bool { return kind(f).Transient }

// CodeFor reports whether code, one of the failures a run deals
// (gen.World.Codes), is one fault f names: a dependency's failure, its
// name first ("redis OOM"), for a fault at a dependency (dep-error); a
// SQLSTATE ("40001") for one at the database (db-error).
func CodeFor(f model.Fault, code string) bool {
	return kind(f).Coded && strings.Contains(code, " ") == (kind(f).Needs == NeedsDependency)
}

// NamesItsTarget reports whether fault f cannot act without the failure
// it names (Call.Point), because that names what it acts on: dep-error's
// dependency ("redis OOM"). A world with no such failure for it never
// draws it.
func NamesItsTarget(f model.Fault) bool { k := kind(f); return k.Coded && k.Needs == NeedsDependency }

// faultsThat lists the registered faults for which keep holds.
func faultsThat(keep func(FaultKind) bool) []model.Fault {
	var fs []model.Fault
	for _, k := range faultKinds {
		if keep(k) {
			fs = append(fs, k.Name)
		}
	}
	return fs
}

// Kinds lists the registry's entries, in its order.
func Kinds() []FaultKind { return slices.Clone(faultKinds) }

// kind is the registry's entry for f; the zero entry (no needs) when f
// has none.
func kind(f model.Fault) FaultKind {
	k, _ := KindOf(f)
	return k
}
