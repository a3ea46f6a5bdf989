package ticketsvc_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// bugScenarios show each bug: a scenario reports whether the mistake showed
// and what was seen. Each must show its bug in its mode and stay silent in
// the correct mode, or it could not fail.
var bugScenarios = map[string]func(e *env) (shown bool, seen string){
	// Shown only across a restart or a crash (crash_test.go).
	"memory-keys":     memoryKeysScenario,
	"non-atomic":      nonAtomicScenario,
	"stuck-in-flight": stuckInFlightScenario,
	"stores-errors":   storesErrorsScenario,
	// Shown only by a database session ended under a call (exit_test.go).
	"exits-on-db-error": exitsOnDBErrorScenario,
	// Shown only by a crash after its commit (crash_test.go).
	"complete-after-commit": completeAfterCommitScenario,
	// Shown only by a process that dies between its two transactions
	// (twotx_test.go).
	"key-tx-first":     keyTxFirstScenario,
	"effects-tx-first": effectsTxFirstScenario,
	// Shown only by an original held past its lease (lease_test.go).
	"short-lease": shortLeaseScenario,
	// Shown only by identical calls at once (hang_test.go).
	"hang-on-burst": hangOnBurstScenario,
	// A call refused for its payload saves the 400 under its key: the
	// corrected call with the key gets it too, and nothing is created.
	"stores-refusals": func(e *env) (bool, string) {
		refused := e.mustPost("A", "k", `{"subject":"x","priority":9}`)
		fixed := e.mustPost("A", "k", `{"subject":"x","priority":3}`)
		other := e.mustPost("A", "k2", `{"subject":"x","priority":3}`)
		ef := e.effectsOf("A", "k")
		shown := refused.status == http.StatusBadRequest && fixed.status == http.StatusBadRequest &&
			fixed.body == refused.body && other.status == http.StatusCreated && len(ef.Tickets) == 0
		return shown, fmt.Sprintf("answers %v %v %v, effects %+v", refused, fixed, other, ef)
	},
	// Every retry enqueues another notification for the same ticket.
	"outbox-on-retry": func(e *env) (bool, string) {
		first := e.mustPost("A", "k", `{"subject":"x"}`)
		second := e.mustPost("A", "k", `{"subject":"x"}`)
		third := e.mustPost("A", "k", `{"subject":"x"}`)
		ef := e.effectsOf("A", "k")
		refs := 0
		for _, o := range ef.Outbox {
			if o.TicketID == first.id {
				refs++
			}
		}
		shown := first.status == http.StatusCreated && second.status == http.StatusOK &&
			third.status == http.StatusOK && second.id == first.id && third.id == first.id &&
			len(ef.Tickets) == 1 && len(ef.Outbox) == 3 && refs == 3
		return shown, fmt.Sprintf("answers %v %v %v, effects %+v", first, second, third, ef)
	},
	// A changed payload replays the original instead of 422.
	"no-payload-check": func(e *env) (bool, string) {
		first := e.mustPost("A", "k", `{"subject":"x"}`)
		changed := e.mustPost("A", "k", `{"subject":"y"}`)
		ef := e.effectsOf("A", "k")
		shown := changed.status == http.StatusOK && changed.id == first.id &&
			len(ef.Tickets) == 1 && ef.Tickets[0].Subject == "x" && len(ef.Outbox) == 1
		return shown, fmt.Sprintf("answers %v %v, effects %+v", first, changed, ef)
	},
	// Tenant B's key is looked up among tenant A's: B gets A's ticket.
	"global-keys": func(e *env) (bool, string) {
		a := e.mustPost("A", "k", `{"subject":"x"}`)
		b := e.mustPost("B", "k", `{"subject":"x"}`)
		bChanged := e.mustPost("B", "k", `{"subject":"y"}`)
		ef := e.effectsOf("B", "k")
		shown := b.status == http.StatusOK && b.id == a.id &&
			bChanged.status == http.StatusUnprocessableEntity &&
			len(ef.Tickets) == 0 && len(ef.Outbox) == 0
		return shown, fmt.Sprintf("answers A %v, B %v %v, B's effects %+v", a, b, bChanged, ef)
	},
	// A retry re-encoding the same JSON is refused as a changed payload.
	"raw-body-fingerprint": func(e *env) (bool, string) {
		first := e.mustPost("A", "k", `{"subject":"x"}`)
		same := e.mustPost("A", "k", `{"subject":"x"}`)
		spaced := e.mustPost("A", "k", `{ "subject": "\u0078" }`)
		ef := e.effectsOf("A", "k")
		shown := same.status == http.StatusOK && same.id == first.id &&
			spaced.status == http.StatusUnprocessableEntity &&
			len(ef.Tickets) == 1 && len(ef.Outbox) == 1
		return shown, fmt.Sprintf("answers %v %v %v, effects %+v", first, same, spaced, ef)
	},
	// Two concurrent calls of one action both pass the lookup and both
	// create: two tickets, two notifications.
	"check-then-insert": func(e *env) (bool, string) {
		c := call{"A", "k", "x"}
		answers := race(e.t, []racer{{e, c}, {e, c}})
		ef := e.effectsOf("A", "k")
		shown := slices.Equal(statuses(answers), []int{201, 201}) && answers[0].id != answers[1].id &&
			len(ef.Tickets) == 2 && len(ef.Outbox) == 2
		return shown, fmt.Sprintf("answers %v, effects %+v", answers, ef)
	},
	// The loser of a concurrent duplicate hits the unique constraint and
	// answers 500, though nothing went wrong but the race.
	"unique-violation-500": func(e *env) (bool, string) {
		c := call{"A", "k", "x"}
		answers := race(e.t, []racer{{e, c}, {e, c}})
		ef := e.effectsOf("A", "k")
		shown := slices.Equal(statuses(answers), []int{201, 500}) && len(ef.Tickets) == 1 && len(ef.Outbox) == 1
		return shown, fmt.Sprintf("answers %v, effects %+v", answers, ef)
	},
	// Two replicas over one database: each one's mutex lets its call
	// through, and both create.
	"process-mutex": func(e *env) (bool, string) {
		c := call{"A", "k", "x"}
		answers := race(e.t, []racer{{e, c}, {e.replica(), c}})
		ef := e.effectsOf("A", "k")
		shown := slices.Equal(statuses(answers), []int{201, 201}) && answers[0].id != answers[1].id &&
			len(ef.Tickets) == 2 && len(ef.Outbox) == 2
		return shown, fmt.Sprintf("answers %v, effects %+v", answers, ef)
	},
	// The fingerprint covers the subject only: a changed priority is
	// replayed as if it were the same payload.
	"partial-fingerprint": func(e *env) (bool, string) {
		first := e.mustPost("A", "k", `{"subject":"x","priority":2}`)
		changed := e.mustPost("A", "k", `{"subject":"x","priority":3}`)
		ef := e.effectsOf("A", "k")
		shown := changed.status == http.StatusOK && changed.id == first.id && len(ef.Tickets) == 1
		return shown, fmt.Sprintf("answers %v %v, effects %+v", first, changed, ef)
	},
	// A retry that carries a tracing query parameter is another action: a
	// second ticket.
	"query-in-key": func(e *env) (bool, string) {
		first := e.mustPost("A", "k", `{"subject":"x"}`)
		traced := e.mustPostQuery("A", "k", "trace=7", `{"subject":"x"}`)
		ef := e.effectsOf("A", "k")
		// (The tagged layout finds an action's rows through its key row,
		// which only the first call wrote under "k".)
		shown := traced.status == http.StatusCreated && traced.id != first.id &&
			(len(ef.Tickets) == 2 || e.layout == ticketsvc.LayoutTagged)
		return shown, fmt.Sprintf("answers %v %v, effects %+v", first, traced, ef)
	},
	// Keys are trimmed though they are exact: "k" followed by a no-break
	// space gets the ticket of "k". (HTTP itself strips spaces and tabs
	// around a header value, so only other white space reaches a service.)
	"trimmed-keys": func(e *env) (bool, string) {
		first := e.mustPost("A", "k", `{"subject":"x"}`)
		spaced := e.mustPost("A", "k\u00a0", `{"subject":"x"}`)
		shown := spaced.status == http.StatusOK && spaced.id == first.id
		return shown, fmt.Sprintf("answers %v %v", first, spaced)
	},
}

func TestBugModesShowTheirBug(t *testing.T) { forEachLayout(t, testBugModesShowTheirBug) }

func testBugModesShowTheirBug(t *testing.T, layout ticketsvc.Layout) {
	for _, bug := range ticketsvc.Bugs() {
		t.Run(bug, func(t *testing.T) {
			t.Parallel() // two databases and services of its own
			scenario, ok := bugScenarios[bug]
			if !ok {
				t.Fatalf("no scenario shows bug %q; add one to bugScenarios", bug)
			}
			if shown, seen := scenario(newEnv(t, layout, bug)); !shown {
				t.Errorf("bug mode %q did not show its bug: %s", bug, seen)
			}
			if shown, seen := scenario(newEnv(t, layout, "")); shown {
				t.Errorf("correct mode showed bug %q: %s", bug, seen)
			}
		})
	}
}

// A list of modes shows each of its bugs, each in a fresh database of the
// list's schema: check-then-insert's race needs the unconstrained schema
// even beside a mode that does not. Where one mistake masks part of
// another's scenario (no-payload-check replays what global-keys' scenario
// expects refused), the table names only the scenarios that stay apart,
// plus the leak itself.
func TestSeveralBugModesShowEachBug(t *testing.T) {
	leak := func(e *env) (bool, string) {
		a := e.mustPost("A", "k", `{"subject":"x"}`)
		b := e.mustPost("B", "k", `{"subject":"x"}`)
		return b.status == http.StatusOK && b.id == a.id, fmt.Sprintf("answers A %v, B %v", a, b)
	}
	tests := []struct {
		bug       string
		scenarios []string
		extra     func(e *env) (bool, string)
	}{
		{bug: "outbox-on-retry,check-then-insert", scenarios: []string{"outbox-on-retry", "check-then-insert"}},
		{bug: "trimmed-keys,raw-body-fingerprint", scenarios: []string{"trimmed-keys", "raw-body-fingerprint"}},
		{bug: "no-payload-check,global-keys", scenarios: []string{"no-payload-check"}, extra: leak},
	}
	for _, tt := range tests {
		t.Run(tt.bug, func(t *testing.T) {
			for _, name := range tt.scenarios {
				if shown, seen := bugScenarios[name](newEnv(t, ticketsvc.LayoutKeys, tt.bug)); !shown {
					t.Errorf("%s did not show %s: %s", tt.bug, name, seen)
				}
			}
			if tt.extra != nil {
				if shown, seen := tt.extra(newEnv(t, ticketsvc.LayoutKeys, tt.bug)); !shown {
					t.Errorf("%s did not show the tenant leak: %s", tt.bug, seen)
				}
				if shown, seen := tt.extra(newEnv(t, ticketsvc.LayoutKeys, "")); shown {
					t.Errorf("the correct mode showed the tenant leak: %s", seen)
				}
			}
		})
	}
}
