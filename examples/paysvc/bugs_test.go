package paysvc_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/paysvc"
)

// Each bug shows on its own sequence of calls, where the correct mode
// answers right; racy-insert needs concurrent calls (see race_test.go).
func TestBugsShow(t *testing.T) {
	for _, tt := range []struct {
		bug string
		// calls makes the calls and reports what went wrong, "" if nothing.
		calls func(e *env) string
	}{
		{"replay-changed", func(e *env) string {
			first := e.mustPay("m1", "k1", 1250, "")
			if a := e.mustPay("m1", "k1", 9999, ""); a.status != http.StatusBadRequest {
				return "changed request answered " + a.body + ", the first was " + first.body
			}
			return ""
		}},
		{"merchant-leak", func(e *env) string {
			e.mustPay("m1", "k1", 1250, "")
			if a := e.mustPay("m2", "k1", 1250, ""); !strings.Contains(a.body, `"merchant_id":"m2"`) {
				return "m2 with m1's key answered " + a.body
			}
			if p, _ := e.rows("m2", "k1"); p != 1 {
				return "m2 with m1's key has no payment"
			}
			return ""
		}},
		{"ledger-on-retry", func(e *env) string {
			e.mustPay("m1", "k1", 1250, "")
			e.mustPay("m1", "k1", 1250, "")
			if _, l := e.rows("m1", "k1"); l != 1 {
				return "a replay wrote a ledger entry"
			}
			return ""
		}},
	} {
		t.Run(tt.bug, func(t *testing.T) {
			if got := tt.calls(newEnv(t, paysvc.Options{})); got != "" {
				t.Fatalf("correct mode: %s", got)
			}
			if got := tt.calls(newEnv(t, paysvc.Options{Bug: tt.bug})); got == "" {
				t.Errorf("bug %s did not show", tt.bug)
			}
			// Joined with another bug, its mistake still shows.
			other := "racy-insert"
			if got := tt.calls(newEnv(t, paysvc.Options{Bug: tt.bug + "," + other})); got == "" {
				t.Errorf("bug %s,%s: %s did not show", tt.bug, other, tt.bug)
			}
		})
	}
}

// Called one at a time, racy-insert is correct: it replays and refuses
// like the correct mode.
func TestRacyInsertIsCorrectOneCallAtATime(t *testing.T) {
	e := newEnv(t, paysvc.Options{Bug: "racy-insert"})
	first := e.mustPay("m1", "k1", 1250, "")
	if a := e.mustPay("m1", "k1", 1250, ""); a.body != first.body {
		t.Errorf("retry answered %s, want %s", a.body, first.body)
	}
	if a := e.mustPay("m1", "k1", 1, ""); a.code != "IDEMPOTENCY_KEY_REUSED" {
		t.Errorf("reused key answered %s", a.body)
	}
	if a := e.mustPay("m2", "k1", 1250, ""); a.status != http.StatusOK || a.id == first.id {
		t.Errorf("another merchant answered %s", a.body)
	}
	e.wantRows("m1", "k1", 1, 1)
}

func TestNewRefusesUnknownBugs(t *testing.T) {
	pool := connect(t)
	_, err := paysvc.New(pool, paysvc.Options{Bug: "replay-changed,no-such-bug"})
	if err == nil || !strings.Contains(err.Error(), "no-such-bug") || !strings.Contains(err.Error(), "racy-insert") {
		t.Errorf("New: %v, want an error naming no-such-bug and the valid modes", err)
	}
}
