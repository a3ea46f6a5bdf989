package model

// FaultKind is one entry of the registry of fault kinds a plan may carry:
// where the fault stands in a plan and what it needs to happen. The
// generator, the contract loader, the case-file reader and the executor's
// dispatch all read it, so a new kind is one entry here and one file of
// package fault (or of the executor) that does it.
type FaultKind struct {
	Name Fault
	// Scope says where the fault stands in a plan: on one call (Call.Fault),
	// or as a step of its own (StepRestart, StepFault).
	Scope FaultScope
	// Needs is what must exist for the fault to fire.
	Needs FaultNeed
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
	// service (process.dependencies); the step names it (Step.Target).
	NeedsDependency FaultNeed = "dependency"
	// NeedsDatabase: an effect table of the service's to wait on (its
	// database sessions are what the fault ends), not its processes.
	NeedsDatabase FaultNeed = "database"
)

// faultKinds is the registry, in the order contracts and reports list
// them. db-stall is not here: it is set around every burst (db_stall:),
// never planned.
var faultKinds = []FaultKind{
	{FaultLoseReply, OnCall, NeedsProxy},
	{FaultDropRequest, OnCall, NeedsProxy},
	{FaultDoubleDelivery, OnCall, NeedsProxy},
	{FaultDelay, OnCall, NeedsProxy},
	{FaultRestart, AsStep, NeedsService},
	{FaultCrash, OnCall, NeedsService},
	{FaultCrashKeyRecord, OnCall, NeedsService},
	{FaultCrashAfterCommit, OnCall, NeedsService},
	{FaultPause, OnCall, NeedsService},
	{FaultDBError, OnCall, NeedsDatabase},
	{FaultSlowOriginal, OnCall, NeedsDatabase},
	{FaultDepRestart, AsStep, NeedsDependency},
	{FaultDepCrash, AsStep, NeedsDependency},
}

// KindOf is the registry's entry for fault f, and whether it has one.
func KindOf(f Fault) (FaultKind, bool) {
	for _, k := range faultKinds {
		if k.Name == f {
			return k, true
		}
	}
	return FaultKind{}, false
}

// faultsThat lists the registered faults for which keep holds.
func faultsThat(keep func(FaultKind) bool) []Fault {
	var fs []Fault
	for _, k := range faultKinds {
		if keep(k) {
			fs = append(fs, k.Name)
		}
	}
	return fs
}
