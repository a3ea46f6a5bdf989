package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
)

func TestVerdictOfTallies(t *testing.T) {
	down := errors.New("database gone")
	clean := tallies{searched: 10, executions: 10, duration: time.Minute}
	with := func(f func(*tallies)) tallies { t := clean; f(&t); return t }
	for _, tc := range []struct {
		name string
		t    tallies
		want checks.Verdict
		err  string // a part of the error's text; "" for none
	}{
		{"a clean run passes", clean, checks.Pass, ""},
		{"a bug fails", with(func(t *tallies) { t.bugs = 1 }), checks.Fail, ""},
		{"a bug stays found when the run stopped", with(func(t *tallies) { t.bugs, t.stop = 2, down }), checks.Fail, "database gone"},
		{"a bug outweighs a fault that did not fire", with(func(t *tallies) { t.bugs, t.unfired = 1, 3 }), checks.Fail, ""},
		{"an infrastructure failure is inconclusive", with(func(t *tallies) { t.stop = down }), checks.Inconclusive, "database gone"},
		{"a stop outweighs a write outside", with(func(t *tallies) { t.stop, t.outside = down, 1 }), checks.Inconclusive, "database gone"},
		{"a write outside the namespace fails", with(func(t *tallies) { t.outside = 1 }), checks.Fail, ""},
		{"another writer is inconclusive", with(func(t *tallies) { t.otherWriter = "another run wrote beside this one" }), checks.Inconclusive, "another run"},
		{"a db-stall that never held is inconclusive", with(func(t *tallies) { t.stallTable, t.stallPlanned = "tickets", 4 }), checks.Inconclusive, "never held back a request in 4 burst(s)"},
		{"a db-stall that held passes", with(func(t *tallies) { t.stallTable, t.stallPlanned, t.stallHeld = "tickets", 4, 1 }), checks.Pass, ""},
		{"no plan tried is inconclusive", with(func(t *tallies) { t.searched = 0 }), checks.Inconclusive, "no plan was tried"},
		{"a fault that did not fire is inconclusive", with(func(t *tallies) { t.unfired, t.unfiredKinds = 2, "crash fired 1 of 3" }), checks.Inconclusive, "2 of 10 executions: a planned fault did not fire (crash fired 1 of 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := verdict(tc.t)
			if got != tc.want {
				t.Errorf("verdict = %s, want %s", got, tc.want)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err = %v, want one saying %q", err, tc.err)
			}
		})
	}
}
