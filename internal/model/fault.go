package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Fault is what goes wrong on purpose: with one call (a lost reply, a crash
// while it is in flight), or around a burst (the db-stall nemesis).
type Fault string

const (
	// FaultNone is a call that is simply sent and answered.
	FaultNone Fault = ""
	// FaultLoseReply: the request reaches the target and its answer is
	// read, then the client's connection is closed without it.
	FaultLoseReply Fault = "lose-reply"
	// FaultDropRequest: the client's connection is closed before anything
	// reaches the target.
	FaultDropRequest Fault = "drop-request"
	// FaultDoubleDelivery: the target gets the request twice, one after
	// the other; the client gets the first answer.
	FaultDoubleDelivery Fault = "double-delivery"
	// FaultDelay: the answer is held until the client has given up on it.
	FaultDelay Fault = "delay"
	// FaultCrash: the replica serving the call is SIGKILLed while the call
	// is in flight, stopped between the action's first and second write.
	FaultCrash Fault = "crash"
	// FaultCrashKeyRecord: the replica serving the call is SIGKILLed at
	// the call's write to the service's own key record (the contract's
	// key_table) after its write to the last effect table: after the
	// effects commit where the service completes the record in a
	// transaction of its own, before it where the record is written in
	// the effects' transaction.
	FaultCrashKeyRecord Fault = "crash-key-record"
	// FaultPause: the replica serving the call is SIGSTOPped until the
	// client has given up; a retry goes to another replica.
	FaultPause Fault = "pause"
	// FaultPauseKeyRecord: the replica serving the call is SIGSTOPped at
	// the call's write to the service's own key record after its write to
	// the last effect table (where crash-key-record kills it), and the
	// same call is sent to another replica: a retry while the original's
	// effects are committed and its key record is not yet complete, where
	// the service completes it in a transaction of its own.
	FaultPauseKeyRecord Fault = "pause-key-record"
	// FaultRestart is a plan step (StepRestart), not a fault of a call.
	FaultRestart Fault = "restart"
	// FaultDBStall is the db-stall nemesis around one burst.
	FaultDBStall Fault = "db-stall"
	// FaultExit is no fault of idemstress's: a replica of the service
	// exited on its own during the plan (an unhandled error, a panic),
	// recorded as an event of the history like the faults, and started
	// again. It is never planned; a history that holds one is a finding
	// (checks: IDEM-018). The event's Note is the replica's exit status
	// and last output lines, masked.
	FaultExit Fault = "exit"
	// FaultDBError: the service's database work for the call fails once,
	// as a passing database error would make it, at its write to the last
	// effect table: through the database proxy its statement is answered
	// with a real PostgreSQL error (40001, 40P01, 57P01) or its
	// connection cut (08006), the one its plan names (Call.Point); where
	// no proxy stands its backend is terminated while it waits on that
	// write (57P01).
	// The service answers 5xx; the contract's errors: policy says what a
	// retry must get.
	FaultDBError Fault = "db-error"
	// FaultSlowOriginal: the call (the original) is held inside the
	// service, at its write to the last effect table, past the contract's
	// lease, while a retry of the same action is sent once the lease has
	// run out; then both go on. A service whose in-progress lease lets the
	// retry take over executes the action twice.
	FaultSlowOriginal Fault = "slow-original"
	// FaultCrashAfterCommit: the replica serving the call is SIGKILLed
	// after the service has done the call's work and answered, before the
	// answer reaches the client (the fault proxy withholds it): for a
	// service that writes its effects and its key record in one
	// transaction, the crash after the commit.
	FaultCrashAfterCommit Fault = "crash-after-commit"
	// FaultCrashAt: the replica serving the call is SIGKILLed exactly at
	// one point of the call's database work (Call.Point), where the
	// PostgreSQL proxy between the service and its database holds the
	// call's session: before or after a statement, before or after a
	// COMMIT, between two transactions. The points are learned from an
	// unfaulted call of the same shape; a run tries each of them.
	FaultCrashAt Fault = "crash-at"
	// FaultDepRestart is a plan step (StepFault): a dependency of the
	// service (its key store) is stopped gracefully and started again, on
	// the same port and data directory, the way it restarts for an upgrade.
	FaultDepRestart Fault = "dep-restart"
	// FaultDepCrash is a plan step (StepFault): a dependency is SIGKILLed
	// and started again, the way a supervisor restarts it after a crash.
	FaultDepCrash Fault = "dep-crash"
	// FaultDepError: the call's first write command to a dependency that
	// speaks RESP (its Redis), through the RESP proxy in front of it, is
	// answered with a Redis error reply (OOM, READONLY, LOADING, BUSY,
	// ERR) in its place, or its connection is cut: the one its plan names
	// with the dependency (Call.Point: "redis OOM", "redis cut"). The
	// service answers as it answers a passing failure of its key store;
	// the contract's errors: policy says what a retry must get.
	FaultDepError Fault = "dep-error"
)

// FaultEvent is a fault as it happened, in the history of one plan's
// execution beside its calls, like a Jepsen nemesis operation: what was
// planned, when it started and ended (on the clock of Op.Start), whether it
// fired, and which calls it touched. A fault that did not fire proved
// nothing: the case is inconclusive.
type FaultEvent struct {
	Kind Fault `json:"kind"`
	// Step is the index of the plan step the fault belongs to.
	Step  int   `json:"step"`
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	Fired bool  `json:"fired"`
	// Ops are the indexes, in the history, of the calls the fault touched.
	Ops []int `json:"ops,omitempty"`
	// Target names what the fault acted on beyond the service's own
	// replicas: a dependency ("redis"); "" for the service.
	Target string `json:"target,omitempty"`
	// Held counts the requests the fault saw held back (db-stall).
	Held int `json:"held,omitempty"`
	// Point is the call's Point, for a fault that lands at one or names
	// its failure.
	Point string `json:"point,omitempty"`
	// Note says why the fault did not fire. It holds no times or PIDs.
	Note string `json:"note,omitempty"`
}

// String renders a fault as it happened, the one way idemstress shows a
// nemesis operation: "restart fired", "crash fired, touched call 2",
// "db-stall not fired (why)". Calls are counted from 1, as people read
// the history.
func (e FaultEvent) String() string {
	s := string(e.Kind)
	if e.Target != "" {
		s += " " + e.Target
	}
	if e.Point != "" {
		s += " " + e.Point
	}
	if !e.Fired {
		s += " not fired"
		if e.Note != "" {
			s += " (" + e.Note + ")"
		}
		return s
	}
	s += " fired"
	if e.Held > 0 {
		s += fmt.Sprintf(", held %d", e.Held)
	}
	if len(e.Ops) > 0 {
		calls := make([]string, len(e.Ops))
		for i, op := range e.Ops {
			calls[i] = strconv.Itoa(op + 1)
		}
		word := "call"
		if len(calls) > 1 {
			word = "calls"
		}
		s += ", touched " + word + " " + strings.Join(calls, ", ")
	}
	return s
}
