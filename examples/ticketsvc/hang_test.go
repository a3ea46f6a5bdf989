package ticketsvc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hangOnBurstScenario: a call waits on the stalled tickets table while an
// identical one arrives. The correct service answers the second in_flight
// at once; hang-on-burst joins it to the first and never answers it.
func hangOnBurstScenario(e *env) (bool, string) {
	e.t.Helper()
	ctx := e.t.Context()
	tx := lockTable(e.t, e.pool, "tickets")
	defer tx.Rollback(context.WithoutCancel(ctx))
	var first answer
	var firstErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		first, firstErr = e.post(ctx, "A", "k", `{"subject":"x"}`)
	}()
	waitWaiting(e, 1)
	callCtx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	second, err := e.post(callCtx, "A", "k", `{"subject":"x"}`)
	cancel()
	hung := errors.Is(err, context.DeadlineExceeded)
	if err != nil && !hung {
		e.t.Fatalf("second call: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		e.t.Fatal(err)
	}
	<-done
	if firstErr != nil {
		e.t.Fatalf("first call: %v", firstErr)
	}
	shown := hung && first.status == http.StatusCreated
	return shown, fmt.Sprintf("first %v, second %v (hung: %v)", first, second, hung)
}

// Three mistakes at once, each reachable apart, as the run that must report
// all three in one go needs them (stress/bugrows TestThreeBugsInOneRun): a
// key left in progress by a crash, a hang under a burst of identical
// calls, and a 500 to the loser of a burst of two payloads of one key.
func TestHangStuckAnd500Together(t *testing.T) {
	const bug = "unique-violation-500,stuck-in-flight,hang-on-burst"
	for name, scenario := range map[string]func(*env) (bool, string){
		"stuck-in-flight": stuckInFlightScenario,
		"hang-on-burst":   hangOnBurstScenario,
		"500":             changedPayloadRace500,
	} {
		t.Run(name, func(t *testing.T) {
			if shown, seen := scenario(newEnv(t, "keys", bug)); !shown {
				t.Errorf("%s did not show %s: %s", bug, name, seen)
			}
			if shown, seen := scenario(newEnv(t, "keys", "")); shown {
				t.Errorf("the correct mode showed %s: %s", name, seen)
			}
		})
	}
}

// changedPayloadRace500: two payloads of one key, released while the key
// table is write-locked, both past their lookup. The loser must be told
// conflict or in_flight; with the key marked first under
// unique-violation-500 it hits the unique constraint and answers 500.
func changedPayloadRace500(e *env) (bool, string) {
	e.t.Helper()
	ctx := e.t.Context()
	tx := lockTable(e.t, e.pool, "idempotency_keys")
	defer tx.Rollback(context.WithoutCancel(ctx))
	answers := make([]answer, 2)
	errs := make([]error, 2)
	var answered atomic.Int32
	var wg sync.WaitGroup
	for i, body := range []string{`{"subject":"x"}`, `{"subject":"y"}`} {
		wg.Go(func() {
			answers[i], errs[i] = e.post(ctx, "A", "k", body)
			answered.Add(1)
		})
	}
	// Settled: each call answered (in_flight, by the correct mode's
	// action lock) or waiting on the key table.
	deadline := time.Now().Add(settleTimeout)
	for int(answered.Load())+waitingOn(e) < 2 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if err := tx.Rollback(ctx); err != nil {
		e.t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			e.t.Fatalf("call %d: %v", i, err)
		}
	}
	shown := slices.Contains(statuses(answers), http.StatusInternalServerError)
	return shown, fmt.Sprintf("answers %v", answers)
}

// waitingOn counts the backends of e's database waiting on a lock.
func waitingOn(e *env) int {
	var n int
	if err := e.pool.QueryRow(e.t.Context(), `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE NOT l.granted AND a.datname = current_database()`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}
