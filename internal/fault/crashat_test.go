package fault

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// A point's name, as a plan carries it, reads back as the same point,
// and matches the proxy's point it names and no other.
func TestPointNames(t *testing.T) {
	for _, tc := range []struct {
		step pgproxy.Step
		name string
	}{
		{pgproxy.Step{Kind: pgproxy.BeforeStatement, Index: 2, Tx: 1}, "before statement 2"},
		{pgproxy.Step{Kind: pgproxy.AfterStatement, Index: 4, Tx: 2}, "after statement 4"},
		{pgproxy.Step{Kind: pgproxy.BeforeCommit, Index: 5, Tx: 1}, "before commit 1"},
		{pgproxy.Step{Kind: pgproxy.AfterCommit, Index: 9, Tx: 2}, "after commit 2"},
		{pgproxy.Step{Kind: pgproxy.BetweenTransactions, Index: 3, Tx: 2}, "after tx 1"},
	} {
		if got := PointName(tc.step); got != tc.name {
			t.Errorf("PointName(%v) = %q, want %q", tc.step, got, tc.name)
		}
		p, err := ParsePoint(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		pt := pgproxy.Point{Kind: tc.step.Kind, Index: tc.step.Index, Tx: tc.step.Tx}
		if !p.matches(pt) {
			t.Errorf("%q does not match %+v", tc.name, pt)
		}
		// A retry's point names the same point of the retry's own work.
		if r, err := ParsePoint(model.RetryPoint(tc.name)); err != nil || r != p {
			t.Errorf("ParsePoint(%q) = %v, %v; want %v", model.RetryPoint(tc.name), r, err, p)
		}
		pt.Index, pt.Tx = pt.Index+1, pt.Tx+1
		if p.matches(pt) {
			t.Errorf("%q matches %+v", tc.name, pt)
		}
	}
	for _, bad := range []string{"", "after tx", "after tx 0", "during statement 1", "before commit x", "retry", "retry retry after tx 1", "burst after tx 1"} {
		if _, err := ParsePoint(bad); err == nil {
			t.Errorf("ParsePoint(%q): no error", bad)
		}
	}
}
