package fault

import (
	"context"
)

// A fault step is a nemesis operation of its own in a plan (model.StepRestart,
// model.StepFault): it acts on what Env reaches of the run, and says
// whether it fired. Each kind is one file of this package and one entry of
// the nemesis's stepFaults (package fault/nemesis); model's registry (model.FaultKind) says where it stands in a
// plan and what it needs, so the generator, the contract loader and the
// case-file reader know it without further edits.

// Dependency is a dependency of the service that idemstress started
// (process.Dependency), as its faults see it.
type Dependency interface {
	// Restart stops it gracefully and starts it again, ready.
	Restart(ctx context.Context) error
	// Crash SIGKILLs it and starts it again, ready.
	Crash(ctx context.Context) error
}

// Env is what a fault step can reach in the run that executes it.
type Env interface {
	// Dependency is the started dependency called name, if there is one.
	Dependency(name string) (Dependency, bool)
	// Replicas are the service's replicas; nil when idemstress did not
	// start the service.
	Replicas() Replicas
}

// Outcome is what a fault step did: whether it fired and, when not, why
// (a Note holds no times or PIDs).
type Outcome struct {
	Fired bool
	Note  string
	// Up says every replica of the service is up again (a restart): a
	// crash's Down is over.
	Up bool
}

// StepFault does one fault step on target (a dependency's name). Its
// error says the run cannot go on; a fault that could not act on its
// target did not fire.
type StepFault func(ctx context.Context, env Env, target string) (Outcome, error)
