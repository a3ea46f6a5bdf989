// Package interp is the plan interpreter: it sends a plan's calls to the
// target one step after the other, releases bursts together (under the
// db-stall nemesis when there is one), and does the plan's faults to the
// calls and to the service's processes, recording every call and every
// fault as events of one history (Jepsen's client and nemesis, joined by
// the history). It judges nothing: package stress reads the rows and
// calls the checks.
//
// API index: an [Executor] (target, contract, the stall, the fault
// proxies, the service's replicas) runs a plan with [Executor.Execute];
// [ErrInfrastructure] marks a failure of the run itself, not of the
// service.
//
// One file a kind of work: execute.go (steps, calls, bursts), faults.go
// (a call's fault and a fault step, looked up in package fault's
// registries and recorded as events: no kind is named here),
// processfaults.go (the restart step and the liveness polling after a
// crash), db.go (each call tied at the PostgreSQL proxy, Executor.DB, by
// its key and tag while it is sent; a call fault's tie is the fault's to
// answer at), deps.go (the same at the RESP proxy in front of each of the
// service's dependencies that speaks RESP, Executor.Deps).
package interp
