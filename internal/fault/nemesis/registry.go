package nemesis

import (
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
)

// The registry of the fault kinds the nemesis does: one entry a kind,
// each a function of package fault (the package doc says why a list
// here rather than kinds that register themselves). A new kind is a file
// of package fault and a line here.

// callFaults are the call faults the nemesis does, by kind.
var callFaults = map[model.Fault]fault.CallFault{
	model.FaultLoseReply:        fault.Proxied,
	model.FaultDropRequest:      fault.Proxied,
	model.FaultDoubleDelivery:   fault.Proxied,
	model.FaultDelay:            fault.Proxied,
	model.FaultCrash:            fault.Crash,
	model.FaultCrashKeyRecord:   fault.CrashKeyRecord,
	model.FaultCrashAfterCommit: fault.CrashAfterCommit,
	model.FaultCrashAt:          fault.CrashAt,
	model.FaultPause:            fault.Pause,
	model.FaultPauseKeyRecord:   fault.PauseKeyRecord,
	model.FaultDBError:          fault.DBError,
	model.FaultDepError:         fault.DepError,
	model.FaultSlowOriginal:     fault.SlowOriginal,
}

// Call is the call fault of kind f, and whether the nemesis does one.
func Call(f model.Fault) (fault.CallFault, bool) {
	do, ok := callFaults[f]
	return do, ok
}

// stepFaults are the fault steps the nemesis does, by kind.
var stepFaults = map[model.Fault]fault.StepFault{
	model.FaultRestart:    fault.Restart,
	model.FaultDepRestart: fault.DepRestart,
	model.FaultDepCrash:   fault.DepCrash,
}

// StepKind is the fault kind of a plan step of its own: restart, or the
// StepFault's fault.
func StepKind(s model.Step) model.Fault {
	if s.Kind == model.StepRestart {
		return model.FaultRestart
	}
	return s.Fault
}

// Step is the fault step of kind f, and whether the nemesis does one.
func Step(f model.Fault) (fault.StepFault, bool) {
	do, ok := stepFaults[f]
	return do, ok
}
