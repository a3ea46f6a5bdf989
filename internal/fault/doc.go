// Package fault holds the fault kinds of idemstress's nemesis: what goes
// wrong around the calls of a plan, on purpose, one kind a file. A call
// fault (CallFault: crash.go, crashat.go, pause.go, commitcrash.go,
// dberror.go with stmterror.go, deperror.go, overrun.go, proxied.go)
// sends its call itself through the CallEnv it is given, in whatever way
// its fault needs (through the fault proxy, with a table held locked, at a
// point of its database work, with the replica stopped); a fault step
// (StepFault: restart.go, dependency.go) acts on what Env reaches. Each
// does one fault and says whether it fired, or why not. Here too is how a
// plan names a fault's point and failure (crashat.go, deppoint.go,
// codes.go), which the case-file reader, the shrinker and the run's
// learning read.
//
// What it does not hold: the nemesis that does a plan's faults, lists
// the kinds here in its registry and keeps what they leave behind
// (package fault/nemesis); the stalls that hold a call's database work
// (fault/dbstall); the fault proxy in front of a replica
// (fault/httpproxy). Model's registry (model.FaultKind) says where each
// kind stands in a plan and what it needs. The package knows nothing of
// checks.
package fault
