// Package fault is idemstress's nemesis: what goes wrong around the calls
// of a plan, on purpose. The stalls that hold a call's database work (a
// table lock, or a barrier in the database proxy) are package
// fault/dbstall; the fault proxy in front of a replica, which loses,
// drops, doubles or delays one call's exchange, is package
// fault/httpproxy. This package does the faults with them.
//
// The whole nemesis stands behind one value (nemesis.go): the executor
// (package interp) holds a Nemesis (Faults, the real one: the service's
// replicas, the fault proxies, the stalls, the barrier), begins each plan
// with it, and asks the plan's faults (PlanFaults) to do each call fault,
// fault step and stalled burst (burst.go). What the faults leave behind
// is kept there too: a replica a crash left down, the actions a crash cut
// off and their liveness polling, the replicas that exit on their own
// (aftermath.go). The executor records what each did as an event of the
// history; it names no kind.
//
// Each fault kind a plan may carry is one file here and one entry of a
// registry: a call fault (Call: crash.go, crashat.go, pause.go,
// commitcrash.go, dberror.go with stmterror.go, overrun.go, proxied.go)
// sends its call itself through the CallEnv the plan's faults give it; a
// fault step (Step: restart.go, dependency.go) acts on what Env reaches.
// Model's registry (model.FaultKind) says where each kind stands in a
// plan and what it needs; TestRegistriesAgree holds the two together. The
// package knows nothing of checks: it does one fault and says whether it
// fired.
package fault
