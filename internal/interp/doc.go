// Package interp is the plan interpreter: it sends a plan's calls to the
// target one step after the other, releases bursts together, and has the
// run's nemesis (package fault's Nemesis) do the plan's faults to the
// calls and to the service's processes, recording every call and every
// fault as events of one history (Jepsen's client and nemesis, joined by
// the history). It judges nothing: package stress reads the rows and
// calls the checks.
//
// API index: an [Executor] (target, contract, the nemesis, the database
// proxy) runs a plan with [Executor.Execute]; [ErrInfrastructure] marks a
// failure of the run itself, not of the service.
//
// One file a kind of work: execute.go (steps, calls, bursts), faults.go
// (a call's fault and a fault step done by the plan's faults, recorded as
// events: no kind is named here), stall.go (a burst under db-stall,
// recorded as an event), exits.go (a replica that exits on its own,
// recorded under the step it cut off), db.go (each call tied at the
// PostgreSQL proxy, Executor.DB, by its key and tag while it is sent; a
// call fault's tie is the fault's to answer at). The nemesis keeps what
// the faults left behind (a replica down, an action cut off), so the
// interpreter can be tested on a fake one (nemesis_test.go). deps.go
// ties each call the same way at the RESP proxy in front of each of the
// service's dependencies that speaks RESP (Executor.Deps).
package interp
