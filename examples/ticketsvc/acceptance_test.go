package ticketsvc_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// acceptanceCard is the seed acceptance card: on an empty, isolated
// database, tenant A sends key retry-17 with one payload twice in a row. It
// returns the assertions that failed, among "ids" (both answers carry the
// same ticket id), "tickets" (exactly one ticket, with the subject and that
// id) and "outbox" (exactly one outbox row, referencing that ticket). Every
// row of the action is selected before anything is compared, so a response
// that looks right cannot hide a wrong state change; in the tagged layout,
// whose tickets have no key column, the rows are selected through the
// action's idempotency_keys row (see effectsOf).
func acceptanceCard(t *testing.T, e *env) []string {
	t.Helper()
	const tenant, key, payload, subject = "A", "retry-17", `{"subject": "Printer offline"}`, "Printer offline"
	if tk, ob, ks := e.counts(); tk+ob+ks != 0 {
		t.Fatalf("card needs an empty database; found %d tickets, %d outbox rows, %d keys", tk, ob, ks)
	}
	first := e.mustPost(tenant, key, payload)
	second := e.mustPost(tenant, key, payload)
	ef := e.effectsOf(tenant, key)

	var failed []string
	if first.status != http.StatusCreated || second.status != http.StatusOK || first.id != second.id {
		t.Logf("ids: answers %d id %d, then %d id %d; want 201 then 200 with the same id",
			first.status, first.id, second.status, second.id)
		failed = append(failed, "ids")
	}
	if len(ef.Tickets) != 1 || ef.Tickets[0].Subject != subject || ef.Tickets[0].ID != first.id {
		t.Logf("tickets: %+v; want exactly one, id %d, subject %q", ef.Tickets, first.id, subject)
		failed = append(failed, "tickets")
	}
	ticketIDs := make([]int64, len(ef.Tickets))
	for i, tk := range ef.Tickets {
		ticketIDs[i] = tk.ID
	}
	if len(ef.Outbox) != 1 || !slices.Contains(ticketIDs, ef.Outbox[0].TicketID) {
		t.Logf("outbox: %+v; want exactly one row referencing one of tickets %v", ef.Outbox, ticketIDs)
		failed = append(failed, "outbox")
	}
	return failed
}

func TestAcceptanceCard(t *testing.T) { forEachLayout(t, testAcceptanceCard) }

func testAcceptanceCard(t *testing.T, layout ticketsvc.Layout) {
	tests := []struct {
		bug  string
		want []string
	}{
		{"", nil},
		// Equal ids and the right ticket, yet a second notification.
		{"outbox-on-retry", []string{"outbox"}},
		// The card replays one payload in one tenant: these bugs need other
		// cards, so it must pass them.
		{"no-payload-check", nil},
		{"global-keys", nil},
		// Both calls send the same bytes.
		{"raw-body-fingerprint", nil},
		// One call at a time, these modes are correct.
		{"check-then-insert", nil},
		{"unique-violation-500", nil},
		{"process-mutex", nil},
		// Same payload, same key, no query string.
		{"partial-fingerprint", nil},
		{"query-in-key", nil},
		{"trimmed-keys", nil},
		// Without a restart or a crash, these modes are correct.
		{"memory-keys", nil},
		{"non-atomic", nil},
		{"stuck-in-flight", nil},
		// Without a failure, nothing is stored.
		{"stores-errors", nil},
		{"complete-after-commit", nil},
		// Without a process that dies between their transactions.
		{"key-tx-first", nil},
		{"effects-tx-first", nil},
		// One call at a time outlasts no lease.
		{"short-lease", nil},
		// One call at a time joins no other.
		{"hang-on-burst", nil},
		// Without a refused call, nothing is stored.
		{"stores-refusals", nil},
		// Without a session ended under a call, nothing exits.
		{"exits-on-db-error", nil},
	}
	if len(tests) != len(ticketsvc.Bugs())+1 {
		t.Fatalf("%d cases for %d bug modes and the correct mode; give every bug its expected card result",
			len(tests), len(ticketsvc.Bugs()))
	}
	for _, tt := range tests {
		name := tt.bug
		if name == "" {
			name = "correct"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel() // a database and a service of its own
			if got := acceptanceCard(t, newEnv(t, layout, tt.bug)); !slices.Equal(got, tt.want) {
				t.Errorf("failed assertions %q, want %q", got, tt.want)
			}
		})
	}
}
