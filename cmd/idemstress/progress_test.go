package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/stress"
)

// Not on a terminal: plain lines, the first at once, then one per
// interval. On a terminal: one line rewritten in place, cleared at the end.
func TestProgressLine(t *testing.T) {
	pr := stress.Progress{Phase: "shrink", Plans: 40, Executions: 95, Calls: 300, FaultsFired: 7, Elapsed: 3 * time.Second,
		Bugs: []checks.ID{checks.TenantLeak}, Shrinking: checks.ChangedAccepted}
	var plain bytes.Buffer
	p := newProgress(&plain, "svc: ")
	p.interval = time.Hour
	p.Update(pr)
	p.Update(pr) // within the interval: not shown
	p.Done()
	want := "idemstress: svc: 3s shrink: 40 plans, 95 executions, 100 calls/s, 7 faults fired, bugs: IDEM-007, shrinking IDEM-004\n"
	if plain.String() != want {
		t.Errorf("plain progress:\n%q\nwant\n%q", plain.String(), want)
	}

	var tty bytes.Buffer
	p = newProgress(&tty, "")
	p.tty = true
	p.Update(pr)
	p.Done()
	if got := tty.String(); !strings.HasPrefix(got, "\r\033[Kidemstress: 3s shrink") || strings.Contains(got, "\n") || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("terminal progress: %q", got)
	}
	if isTerminal(&tty) {
		t.Errorf("a buffer taken for a terminal")
	}
}
