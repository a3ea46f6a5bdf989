package ticketsvc_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/internal/fault/dbstall"
)

// memoryKeysScenario: a restarted process (a new Service over the same
// database) has forgotten the key, and the same call creates a second
// ticket.
func memoryKeysScenario(e *env) (bool, string) {
	first := e.mustPost("A", "k", `{"subject":"x"}`)
	again := e.replica().mustPost("A", "k", `{"subject":"x"}`)
	ef := e.effectsOf("A", "k")
	shown := again.status == http.StatusCreated && again.id != first.id && len(ef.Tickets) == 2
	return shown, fmt.Sprintf("answers %v %v, effects %+v", first, again, ef)
}

// nonAtomicScenario: a call cut off while it waits to write its
// notification leaves a ticket whose retry is replayed without one.
func nonAtomicScenario(e *env) (bool, string) {
	e.interruptAtOutbox("A", "k", `{"subject":"x"}`)
	retry := e.mustPost("A", "k", `{"subject":"x"}`)
	ef := e.effectsOf("A", "k")
	shown := retry.status == http.StatusOK && len(ef.Tickets) == 1 && len(ef.Outbox) == 0
	return shown, fmt.Sprintf("retry %v, effects %+v", retry, ef)
}

// stuckInFlightScenario: a call cut off while it waits to write its
// notification leaves its key in progress: the retry, with nothing in
// flight any more, answers in_flight.
func stuckInFlightScenario(e *env) (bool, string) {
	e.interruptAtOutbox("A", "k", `{"subject":"x"}`)
	retry := e.mustPost("A", "k", `{"subject":"x"}`)
	ef := e.effectsOf("A", "k")
	shown := retry.status == http.StatusConflict && len(ef.Tickets) == 0
	return shown, fmt.Sprintf("retry %v, effects %+v", retry, ef)
}

// storesErrorsScenario: a call whose database work fails (cut off while it
// waits to write its notification) answers 500, and its retry gets the
// same 500 instead of a fresh execution.
func storesErrorsScenario(e *env) (bool, string) {
	e.interruptAtOutbox("A", "k", `{"subject":"x"}`)
	retry := e.mustPost("A", "k", `{"subject":"x"}`)
	ef := e.effectsOf("A", "k")
	shown := retry.status == http.StatusInternalServerError && len(ef.Tickets) == 0
	return shown, fmt.Sprintf("retry %v, effects %+v", retry, ef)
}

// completeAfterCommitScenario: a call cut off at its write to its key
// record after its notification (where complete-after-commit has
// committed the ticket and not yet completed the key) leaves the key in
// progress: the retry answers in_flight, with the ticket there.
func completeAfterCommitScenario(e *env) (bool, string) {
	outbox := dbstall.Stall{Pool: e.pool, Table: "notification_outbox", Wait: 5 * time.Second}
	keys := dbstall.Stall{Pool: e.pool, Table: "idempotency_keys", Wait: 5 * time.Second}
	callCtx, cancel := context.WithCancel(e.t.Context())
	defer cancel()
	// The call is given up while it waits on the key record's lock, and
	// the lock kept until the service's statement there has been cancelled
	// too: released sooner, on a loaded machine the service's handler had
	// not yet seen its client go, completed the key record and committed
	// (1 run in 8), as a killed process never does.
	rep, err := outbox.HoldAfter(e.t.Context(), keys, func(context.Context, *atomic.Int64) {
		_, _ = e.post(callCtx, "A", "k", `{"subject":"x"}`)
	}, func() { cancel(); waitWaiting(e, 0) })
	if err != nil {
		e.t.Fatal(err)
	}
	waitWaiting(e, 0)
	retry := e.mustPost("A", "k", `{"subject":"x"}`)
	// The tickets table's rows, not the action's: the tagged layout finds
	// an action's rows through its key row's ticket, which a key left in
	// progress does not name yet (and the env holds this one action only).
	tickets, _, _ := e.counts()
	shown := rep.Fired && retry.status == http.StatusConflict && tickets == 1
	return shown, fmt.Sprintf("held %+v, retry %v, tickets %d", rep, retry, tickets)
}

// interruptAtOutbox sends a call while notification_outbox is write-locked
// and gives up on it once it waits on that lock; the lock is released only
// after the service's transaction has ended, so its write never happens.
func (e *env) interruptAtOutbox(tenant, key, body string) {
	e.t.Helper()
	ctx := e.t.Context()
	tx := lockTable(e.t, e.pool, "notification_outbox")
	defer tx.Rollback(context.WithoutCancel(ctx))
	var locker int
	if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&locker); err != nil {
		e.t.Fatal(err)
	}
	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.post(callCtx, tenant, key, body)
	}()
	waitWaiting(e, 1)
	cancel()
	<-done
	waitWaiting(e, 0)
	// No longer waiting is not yet rolled back: on a loaded machine the
	// service's transaction (and its key row) outlived the wait, and the
	// correct mode's retry was answered in_flight.
	waitNoTransactionBut(e, locker)
}

// waitNoTransactionBut waits until no backend of the database but the
// locker's (and the asking one) is inside a transaction, bounded.
func waitNoTransactionBut(e *env, locker int) {
	e.t.Helper()
	for range 1000 {
		var got int
		if err := e.pool.QueryRow(e.t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND xact_start IS NOT NULL AND pid NOT IN (pg_backend_pid(), $1)`, locker).Scan(&got); err != nil {
			e.t.Fatal(err)
		}
		if got == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatal("the service's transaction never ended")
}

// waitWaiting waits until n backends of e's database wait on a lock,
// bounded: other tests run beside this one on the cluster.
func waitWaiting(e *env, n int) {
	e.t.Helper()
	for range 1000 {
		var got int
		if err := e.pool.QueryRow(e.t.Context(), `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
			WHERE NOT l.granted AND a.datname = current_database()`).Scan(&got); err != nil {
			e.t.Fatal(err)
		}
		if got == n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("never saw %d backend(s) waiting on a lock", n)
}
