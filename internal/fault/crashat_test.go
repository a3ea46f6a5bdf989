package fault

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/respproxy"
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
		if r, err := ParsePoint(coverage.RetryPoint(tc.name)); err != nil || r != p {
			t.Errorf("ParsePoint(%q) = %v, %v; want %v", coverage.RetryPoint(tc.name), r, err, p)
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

// A point at a dependency's command reads back as itself, matches the
// RESP proxy's point it names and no other, and never a database point.
func TestDepPointNames(t *testing.T) {
	for _, tc := range []struct {
		step respproxy.Step
		name string
	}{
		{respproxy.Step{Kind: respproxy.BeforeCommand, Command: "SET", N: 1, Index: 2}, "before redis SET 1"},
		{respproxy.Step{Kind: respproxy.AfterCommand, Command: "JSON.SET", N: 2, Index: 5}, "after redis JSON.SET 2"},
	} {
		p, ok := DepPointOf("redis", tc.step)
		if !ok || p.String() != tc.name {
			t.Errorf("DepPointOf(%v) = %q, %v; want %q", tc.step, p, ok, tc.name)
		}
		q, err := ParsePoint(tc.name)
		if err != nil || q != p {
			t.Fatalf("ParsePoint(%q) = %+v, %v; want %+v", tc.name, q, err, p)
		}
		pt := respproxy.Point{Kind: tc.step.Kind, Command: tc.step.Command, N: tc.step.N}
		if !q.matchesDep(pt) {
			t.Errorf("%q does not match %+v", tc.name, pt)
		}
		pt.N++
		if q.matchesDep(pt) {
			t.Errorf("%q matches %+v", tc.name, pt)
		}
		if q.matches(pgproxy.Point{Kind: q.Kind, Index: tc.step.N, Tx: 1}) {
			t.Errorf("%q matches a database point", tc.name)
		}
	}
	if _, ok := DepPointOf("redis", respproxy.Step{Kind: respproxy.BeforeCommand, Command: "S\x00T", N: 1}); ok {
		t.Error("a command name that is no word of capitals can be named by a plan")
	}
	for _, bad := range []string{"before redis set 1", "before Redis SET 1", "during redis SET 1", "after redis SET 0", "after redis SET"} {
		if _, err := ParsePoint(bad); err == nil {
			t.Errorf("ParsePoint(%q): no error", bad)
		}
	}
	got := DepPointNames("redis", []respproxy.Step{{Kind: respproxy.BeforeCommand, Command: "SET", N: 1}, {Kind: respproxy.AfterCommand, Command: "SET", N: 1}, {Kind: respproxy.BeforeCommand, Command: "SET", N: 1}})
	if strings.Join(got, ", ") != "before redis SET 1, after redis SET 1" {
		t.Errorf("DepPointNames: %q", got)
	}
}
