package ticketsvc_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// sequentiallyCorrect are the correct mode ("") and the bug modes whose
// mistake needs concurrent calls: one call at a time they must answer and
// write exactly as the correct mode.
var sequentiallyCorrect = []string{"", "check-then-insert", "unique-violation-500", "process-mutex"}

// forEachSequentiallyCorrect runs f as one subtest per layout and mode of
// sequentiallyCorrect.
func forEachSequentiallyCorrect(t *testing.T, f func(t *testing.T, layout ticketsvc.Layout, bug string)) {
	forEachLayout(t, func(t *testing.T, layout ticketsvc.Layout) {
		for _, bug := range sequentiallyCorrect {
			name := bug
			if name == "" {
				name = "correct"
			}
			t.Run(name, func(t *testing.T) { f(t, layout, bug) })
		}
	})
}

// TestSequentialCalls walks one database per layout and mode through
// creates, replays, canonical re-encodings and conflicts, checking every
// answer and every row after each call.
func TestSequentialCalls(t *testing.T) { forEachSequentiallyCorrect(t, testSequentialCalls) }

func testSequentialCalls(t *testing.T, layout ticketsvc.Layout, bug string) {
	e := newEnv(t, layout, bug)
	type step struct {
		name              string
		tenant, key, body string
		status            int
		// subject is the stored subject of the action afterwards.
		subject string
	}
	steps := []step{
		{"create", "A", "k1", `{"subject":"x"}`, http.StatusCreated, "x"},
		{"replay", "A", "k1", `{"subject":"x"}`, http.StatusOK, "x"},
		{"replay with other whitespace", "A", "k1", `{ "subject" : "x" }`, http.StatusOK, "x"},
		{"replay with an escape", "A", "k1", `{"subject":"\u0078"}`, http.StatusOK, "x"},
		{"changed payload", "A", "k1", `{"subject":"y"}`, http.StatusUnprocessableEntity, "x"},
		{"same key, other tenant", "B", "k1", `{"subject":"x"}`, http.StatusCreated, "x"},
		{"key differing in case only", "A", "K1", `{"subject":"z"}`, http.StatusCreated, "z"},
		{"create with two fields", "A", "k2", `{"subject":"x","priority":1}`, http.StatusCreated, "x"},
		{"replay with fields reordered", "A", "k2", `{"priority":1,"subject":"x"}`, http.StatusOK, "x"},
		{"replay missing a field", "A", "k2", `{"subject":"x"}`, http.StatusUnprocessableEntity, "x"},
		{"number written differently", "A", "k2", `{"subject":"x","priority":1.0}`, http.StatusOK, "x"},
		{"number in exponent form", "A", "k2", `{"subject":"x","priority":10e-1}`, http.StatusOK, "x"},
		{"priority out of range", "A", "k3", `{"subject":"x","priority":6}`, http.StatusBadRequest, ""},
		{"priority not whole", "A", "k3", `{"subject":"x","priority":2.5}`, http.StatusBadRequest, ""},
		{"channel not in the enum", "A", "k3", `{"subject":"x","channel":"fax"}`, http.StatusBadRequest, ""},
		{"changed payload after a conflict", "B", "k1", `{"subject":"y"}`, http.StatusUnprocessableEntity, "x"},
		{"replay after a conflict", "B", "k1", `{"subject":"x"}`, http.StatusOK, "x"},
		{"longest tenant and key", strings.Repeat("t", 1024), strings.Repeat("é", 512), `{"subject":"x"}`, http.StatusCreated, "x"},
		{"replay of the longest", strings.Repeat("t", 1024), strings.Repeat("é", 512), `{"subject":"x"}`, http.StatusOK, "x"},
		{"unicode and spaces in a key", "A", "clé n°1 / x", `{"subject":"x"}`, http.StatusCreated, "x"},
	}
	type action struct{ tenant, key string }
	ids := map[action]int64{}
	for _, s := range steps {
		a := e.mustPost(s.tenant, s.key, s.body)
		if a.status != s.status {
			t.Fatalf("%s: got %d %s, want %d", s.name, a.status, a.body, s.status)
		}
		act := action{s.tenant, s.key}
		switch s.status {
		case http.StatusCreated:
			for other, id := range ids {
				if id == a.id {
					t.Fatalf("%s: new ticket got id %d, already answered for %v", s.name, id, other)
				}
			}
			ids[act] = a.id
		case http.StatusOK:
			if a.id != ids[act] {
				t.Fatalf("%s: replay answered id %d, want %d", s.name, a.id, ids[act])
			}
		case http.StatusBadRequest:
			if ef := e.effectsOf(s.tenant, s.key); len(ef.Tickets)+len(ef.Outbox) != 0 {
				t.Fatalf("%s: a refused call left %+v", s.name, ef)
			}
			continue
		}
		checkOneEffect(t, s.name, e.effectsOf(s.tenant, s.key), ids[act], s.subject)
		if tk, ob, ks := e.counts(); tk != len(ids) || ob != len(ids) || ks != len(ids) {
			t.Fatalf("%s: %d tickets, %d outbox rows, %d keys in total; want %d of each", s.name, tk, ob, ks, len(ids))
		}
	}
}

// checkOneEffect asserts that an action has exactly one ticket, with the
// given id and subject, and exactly one outbox row, referencing it.
func checkOneEffect(t *testing.T, name string, ef effects, id int64, subject string) {
	t.Helper()
	if len(ef.Tickets) != 1 || ef.Tickets[0].ID != id || ef.Tickets[0].Subject != subject {
		t.Fatalf("%s: tickets %+v, want exactly [{ID:%d Subject:%s}]", name, ef.Tickets, id, subject)
	}
	if len(ef.Outbox) != 1 || ef.Outbox[0].TicketID != id {
		t.Fatalf("%s: outbox %+v, want exactly one row with TicketID %d", name, ef.Outbox, id)
	}
}

// TestInvalidRequests checks that malformed calls are refused and write
// nothing.
func TestInvalidRequests(t *testing.T) { forEachSequentiallyCorrect(t, testInvalidRequests) }

func testInvalidRequests(t *testing.T, layout ticketsvc.Layout, bug string) {
	e := newEnv(t, layout, bug)
	ok := http.Header{"X-Tenant": {"A"}, "Idempotency-Key": {"k"}}
	with := func(name string, vals ...string) http.Header {
		h := ok.Clone()
		h[name] = vals
		return h
	}
	without := func(name string) http.Header {
		h := ok.Clone()
		delete(h, name)
		return h
	}
	tests := []struct {
		name         string
		method, path string
		header       http.Header
		body         string
		want         int
	}{
		{"missing key", "POST", "/tickets", without("Idempotency-Key"), `{"subject":"x"}`, 400},
		{"empty key", "POST", "/tickets", with("Idempotency-Key", ""), `{"subject":"x"}`, 400},
		{"two keys", "POST", "/tickets", with("Idempotency-Key", "k", "l"), `{"subject":"x"}`, 400},
		{"key not UTF-8", "POST", "/tickets", with("Idempotency-Key", "k\xff"), `{"subject":"x"}`, 400},
		{"key too long", "POST", "/tickets", with("Idempotency-Key", strings.Repeat("k", 1025)), `{"subject":"x"}`, 400},
		{"missing tenant", "POST", "/tickets", without("X-Tenant"), `{"subject":"x"}`, 400},
		{"tenant too long", "POST", "/tickets", with("X-Tenant", strings.Repeat("t", 1025)), `{"subject":"x"}`, 400},
		{"empty tenant", "POST", "/tickets", with("X-Tenant", ""), `{"subject":"x"}`, 400},
		{"empty body", "POST", "/tickets", ok, ``, 400},
		{"not JSON", "POST", "/tickets", ok, `{"subject":`, 400},
		{"trailing garbage", "POST", "/tickets", ok, `{"subject":"x"} x`, 400},
		{"trailing brace", "POST", "/tickets", ok, `{"subject":"x"}}`, 400},
		{"two objects", "POST", "/tickets", ok, `{"subject":"x"} {"subject":"x"}`, 400},
		{"array", "POST", "/tickets", ok, `["subject"]`, 400},
		{"string", "POST", "/tickets", ok, `"x"`, 400},
		{"null", "POST", "/tickets", ok, `null`, 400},
		{"no subject", "POST", "/tickets", ok, `{"title":"x"}`, 400},
		{"numeric subject", "POST", "/tickets", ok, `{"subject":1}`, 400},
		{"null subject", "POST", "/tickets", ok, `{"subject":null}`, 400},
		{"NUL in subject", "POST", "/tickets", ok, `{"subject":"a\u0000b"}`, 400},
		{"too large", "POST", "/tickets", ok, `{"subject":"` + strings.Repeat("x", 1<<20) + `"}`, 413},
		{"GET", "GET", "/tickets", ok, ``, 405},
		{"PUT", "PUT", "/tickets", ok, `{"subject":"x"}`, 405},
		{"other path", "POST", "/ticket", ok, `{"subject":"x"}`, 404},
		{"trailing slash", "POST", "/tickets/", ok, `{"subject":"x"}`, 404},
	}
	for _, tt := range tests {
		req, err := http.NewRequestWithContext(t.Context(), tt.method, e.url+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = tt.header
		a, err := e.do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if a.status != tt.want {
			t.Errorf("%s: got %d %s, want %d", tt.name, a.status, a.body, tt.want)
		}
		if tk, ob, ks := e.counts(); tk+ob+ks != 0 {
			t.Fatalf("%s: wrote %d tickets, %d outbox rows, %d keys; want none", tt.name, tk, ob, ks)
		}
	}
	// The same key still works once the call is well formed.
	if a := e.mustPost("A", "k", `{"subject":"x"}`); a.status != http.StatusCreated {
		t.Fatalf("valid call after invalid ones: got %d %s, want 201", a.status, a.body)
	}
}

func TestBugs(t *testing.T) {
	want := []string{"outbox-on-retry", "no-payload-check", "global-keys", "raw-body-fingerprint",
		"check-then-insert", "unique-violation-500", "process-mutex", "partial-fingerprint", "query-in-key", "trimmed-keys",
		"memory-keys", "non-atomic", "stuck-in-flight", "stores-errors", "complete-after-commit", "key-tx-first", "effects-tx-first", "short-lease", "hang-on-burst", "stores-refusals", "exits-on-db-error"}
	if got := ticketsvc.Bugs(); !slices.Equal(got, want) {
		t.Fatalf("Bugs() = %q, want %q", got, want)
	}
}

func TestNewRejectsUnknownBug(t *testing.T) {
	pool := newPool(t, ticketsvc.LayoutKeys)
	_, err := ticketsvc.New(pool, ticketsvc.Options{Bug: "no-such-bug"})
	if err == nil {
		t.Fatal("New accepted bug mode \"no-such-bug\"")
	}
	for _, name := range append(ticketsvc.Bugs(), "no-such-bug") {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not mention %q", err, name)
		}
	}
	for _, bug := range append(ticketsvc.Bugs(), "") {
		if _, err := ticketsvc.New(pool, ticketsvc.Options{Bug: bug}); err != nil {
			t.Errorf("New with bug %q: %v", bug, err)
		}
	}
}

func TestNewRejectsUnknownLayout(t *testing.T) {
	pool := newPool(t, ticketsvc.LayoutKeys)
	_, err := ticketsvc.New(pool, ticketsvc.Options{Layout: "no-such-layout"})
	if err == nil {
		t.Fatal("New accepted layout \"no-such-layout\"")
	}
	for _, name := range []string{"keys", "tagged", "no-such-layout"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not mention %q", err, name)
		}
	}
	for _, layout := range append(ticketsvc.Layouts(), "") {
		if _, err := ticketsvc.New(pool, ticketsvc.Options{Layout: layout}); err != nil {
			t.Errorf("New with layout %q: %v", layout, err)
		}
	}
}
