package ticketsvc

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestActionMutex: one action's calls exclude each other, other actions'
// do not, a waiter can give up with its context, and no entry outlives the
// calls that hold or wait for it.
func TestActionMutex(t *testing.T) {
	m := newActionMutex()
	a, b := action{"A", "k"}, action{"B", "k"}
	unlockA, err := m.lock(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	// Another action is free.
	unlockB, err := m.lock(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	unlockB()

	// The same action waits, and counts as a waiter, until unlocked.
	type locked struct {
		unlock func()
		err    error
	}
	got := make(chan locked, 1)
	go func() {
		unlock, err := m.lock(context.Background(), a)
		got <- locked{unlock, err}
	}()
	waitFor(t, func() bool { return m.waiters() == 1 })
	select {
	case <-got:
		t.Fatal("a second call took a held action's lock")
	default:
	}

	// A waiter whose context ends gives up, and stops counting.
	ctx, cancel := context.WithCancel(t.Context())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := m.lock(ctx, a)
		gaveUp <- err
	}()
	waitFor(t, func() bool { return m.waiters() == 2 })
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("lock after cancel: %v, want context.Canceled", err)
	}
	if n := m.waiters(); n != 1 {
		t.Fatalf("%d waiters after one gave up, want 1", n)
	}

	unlockA()
	second := <-got
	if second.err != nil {
		t.Fatalf("the waiter, after the unlock: %v", second.err)
	}
	second.unlock()
	if n := len(m.actions); n != 0 {
		t.Fatalf("%d actions left in the mutex after every call ended, want 0", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(time.Millisecond)
	}
}
