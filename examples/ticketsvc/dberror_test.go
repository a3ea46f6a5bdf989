package ticketsvc_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// syncBuffer is a log sink shared by the handler and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDatabaseErrorIs500AndAtomic breaks the second write of a create: the
// call must answer 500, log why, and leave no ticket behind; once the
// database is repaired the retry creates the ticket.
func TestDatabaseErrorIs500AndAtomic(t *testing.T) { forEachLayout(t, testDatabaseErrorIs500AndAtomic) }

func testDatabaseErrorIs500AndAtomic(t *testing.T, layout ticketsvc.Layout) {
	var logs syncBuffer
	e := newEnvWith(t, ticketsvc.Options{Layout: layout, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if _, err := e.pool.Exec(t.Context(), `DROP TABLE notification_outbox`); err != nil {
		t.Fatal(err)
	}
	a := e.mustPost("A", "k", `{"subject":"x"}`)
	if a.status != http.StatusInternalServerError {
		t.Fatalf("got %d %s, want 500", a.status, a.body)
	}
	if l := logs.String(); !strings.Contains(l, "create ticket failed") || !strings.Contains(l, "notification_outbox") {
		t.Errorf("log %q does not explain the failure", l)
	}
	var tickets int
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM tickets`).Scan(&tickets); err != nil || tickets != 0 {
		t.Fatalf("%d tickets (err %v) survived a failed create; want 0", tickets, err)
	}
	if err := ticketsvc.Migrate(t.Context(), e.pool, layout); err != nil {
		t.Fatal(err)
	}
	a = e.mustPost("A", "k", `{"subject":"x"}`)
	if a.status != http.StatusCreated {
		t.Fatalf("retry after repair: got %d %s, want 201", a.status, a.body)
	}
	checkOneEffect(t, "retry after repair", e.effectsOf("A", "k"), a.id, "x")
}
