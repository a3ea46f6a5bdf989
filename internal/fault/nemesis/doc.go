// Package nemesis is idemstress's nemesis behind one value: the executor
// (package interp) holds a Nemesis (Faults, the real one: the service's
// replicas, the fault proxies, the stalls, the barrier), begins each plan
// with it, and asks the plan's faults (PlanFaults) to do each call fault,
// fault step and stalled burst (burst.go). What the faults leave behind
// is kept here too: a replica a crash left down, the actions a crash cut
// off and their liveness polling, the replicas that exit on their own
// (aftermath.go). The executor records what each did as an event of the
// history; it names no kind.
//
// How each kind is done is package fault's, one function a kind; the
// stalls and the fault proxy the faults use are packages fault/dbstall
// and fault/httpproxy. This package only dispatches, through its registry
// (registry.go): an explicit map from kind to package fault's function,
// not kinds that register themselves. Self-registration would need state
// filled at init time, or a registering call someone must remember to
// make, and blank imports to be sure it happened; the map is one place
// that says what is done, no global is written, and TestRegistriesAgree
// holds it to model's registry (model.FaultKind), which says where each
// kind stands in a plan and what it needs. A kind is planned and never
// done, or done and never planned, only if that test fails.
package nemesis
