package ticketsvc_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// TestServiceChecksLayout serves a database that does not hold the
// service's layout: every create answers 500, writes nothing and logs what
// to do; once the database is migrated with the service's layout, calls
// succeed.
func TestServiceChecksLayout(t *testing.T) {
	for _, layout := range ticketsvc.Layouts() {
		for _, dbLayout := range append(ticketsvc.Layouts(), "none") {
			if dbLayout == layout {
				continue
			}
			t.Run(string(layout)+"_on_"+string(dbLayout), func(t *testing.T) {
				pool := connect(t, newDatabase(t))
				wantLog := []string{`run Migrate with layout \"` + string(layout) + `\"`}
				if dbLayout != "none" {
					if err := ticketsvc.Migrate(t.Context(), pool, dbLayout); err != nil {
						t.Fatal(err)
					}
					wantLog = []string{`runs the \"` + string(layout) + `\" layout`, `holds the \"` + string(dbLayout) + `\" layout`}
				}
				var logs syncBuffer
				e := serve(t, pool, ticketsvc.Options{Layout: layout, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				for range 2 {
					if a := e.mustPost("A", "k", `{"subject":"x"}`); a.status != http.StatusInternalServerError {
						t.Fatalf("got %d %s, want 500", a.status, a.body)
					}
				}
				for _, want := range wantLog {
					if !strings.Contains(logs.String(), want) {
						t.Errorf("log %q does not say %q", logs.String(), want)
					}
				}
				if dbLayout != "none" {
					if tk, ob, ks := e.counts(); tk+ob+ks != 0 {
						t.Fatalf("wrote %d tickets, %d outbox rows, %d keys; want none", tk, ob, ks)
					}
					return
				}
				// A service started before its database is migrated
				// recovers once it is.
				if err := ticketsvc.Migrate(t.Context(), pool, layout); err != nil {
					t.Fatal(err)
				}
				a := e.mustPost("A", "k", `{"subject":"x"}`)
				if a.status != http.StatusCreated {
					t.Fatalf("after Migrate: got %d %s, want 201", a.status, a.body)
				}
				checkOneEffect(t, "after Migrate", e.effectsOf("A", "k"), a.id, "x")
			})
		}
	}
}

// TestRawBodyFingerprint retries one create with re-encodings of the same
// JSON: the raw-body-fingerprint mode refuses each as a changed payload
// (422), the correct mode replays the ticket; both replay the very same
// bytes, and neither writes a second row.
func TestRawBodyFingerprint(t *testing.T) {
	const original = `{"subject":"Printer offline","priority":1}`
	reencoded := []struct{ name, body string }{
		{"other whitespace", "{ \"subject\" : \"Printer offline\",\n \"priority\" : 1 }"},
		{"keys reordered", `{"priority":1,"subject":"Printer offline"}`},
		{"unicode escapes", `{"subject":"\u0050rinter offline","priority":1}`},
		{"escaped space", `{"subject":"Printer\u0020offline","priority":1}`},
	}
	forEachLayout(t, func(t *testing.T, layout ticketsvc.Layout) {
		for _, mode := range []struct {
			bug  string
			want int
		}{{"raw-body-fingerprint", http.StatusUnprocessableEntity}, {"", http.StatusOK}} {
			name := mode.bug
			if name == "" {
				name = "correct"
			}
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, layout, mode.bug)
				first := e.mustPost("A", "k", original)
				if first.status != http.StatusCreated {
					t.Fatalf("create: got %d %s, want 201", first.status, first.body)
				}
				for _, r := range reencoded {
					a := e.mustPost("A", "k", r.body)
					if a.status != mode.want || (mode.want == http.StatusOK && a.id != first.id) {
						t.Errorf("%s: got %d id %d %s, want %d (id %d on 200)", r.name, a.status, a.id, a.body, mode.want, first.id)
					}
				}
				if a := e.mustPost("A", "k", original); a.status != http.StatusOK || a.id != first.id {
					t.Errorf("byte-identical retry: got %d id %d %s, want 200 id %d", a.status, a.id, a.body, first.id)
				}
				if a := e.mustPost("A", "k", `{"subject":"Printer online","priority":1}`); a.status != http.StatusUnprocessableEntity {
					t.Errorf("changed payload: got %d %s, want 422", a.status, a.body)
				}
				checkOneEffect(t, "after the retries", e.effectsOf("A", "k"), first.id, "Printer offline")
				if tk, ob, ks := e.counts(); tk != 1 || ob != 1 || ks != 1 {
					t.Fatalf("%d tickets, %d outbox rows, %d keys; want 1 of each", tk, ob, ks)
				}
			})
		}
	})
}

// TestServiceChecksConstraints serves a database migrated for a mode that
// needs the unique constraints the other way: every create answers 500,
// writes nothing and logs what the mode needs; a Service in the database's
// mode over the same tables works.
func TestServiceChecksConstraints(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout ticketsvc.Layout) {
		for _, tt := range []struct{ db, svc, needs string }{
			{"", "check-then-insert", "without unique constraints"},
			{"", "process-mutex", "without unique constraints"},
			{"check-then-insert", "", "with unique constraints"},
			{"process-mutex", "unique-violation-500", "with unique constraints"},
		} {
			t.Run(modeTestName(tt.svc)+"_on_"+modeTestName(tt.db), func(t *testing.T) {
				pool := newPool(t, layout, ticketsvc.ForBug(tt.db))
				var logs syncBuffer
				e := serve(t, pool, ticketsvc.Options{Layout: layout, Bug: tt.svc, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				for range 2 {
					if a := e.mustPost("A", "k", `{"subject":"x"}`); a.status != http.StatusInternalServerError {
						t.Fatalf("got %d %s, want 500", a.status, a.body)
					}
				}
				if tk, ob, ks := e.counts(); tk+ob+ks != 0 {
					t.Fatalf("wrote %d tickets, %d outbox rows, %d keys; want none", tk, ob, ks)
				}
				mode := `the correct mode`
				if tt.svc != "" {
					mode = `bug mode \"` + tt.svc + `\"`
				}
				for _, want := range []string{"runs " + mode, `needs the \"` + string(layout) + `\" layout ` + tt.needs, "migrate a fresh database"} {
					if !strings.Contains(logs.String(), want) {
						t.Errorf("log %q does not say %q", logs.String(), want)
					}
				}
				right := serve(t, pool, ticketsvc.Options{Layout: layout, Bug: tt.db})
				a := right.mustPost("A", "k", `{"subject":"x"}`)
				if a.status != http.StatusCreated {
					t.Fatalf("%s over its own database: got %d %s, want 201", modeTestName(tt.db), a.status, a.body)
				}
				checkOneEffect(t, "in the database's mode", right.effectsOf("A", "k"), a.id, "x")
			})
		}
	})
}
