package stress

import (
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// A shrink's budget fits shrinkCandidates runs of the failing plan: a plan
// that waits out a 10 s call timeout gets more than 30 s.
func TestShrinkBudget(t *testing.T) {
	for _, tc := range []struct{ shrink, took, want time.Duration }{
		{30 * time.Second, 100 * time.Millisecond, 30 * time.Second},
		{30 * time.Second, 10 * time.Second, shrinkCandidates * 10 * time.Second},
		{0, time.Second, shrinkCandidates * time.Second},
	} {
		if got := shrinkBudget(tc.shrink, tc.took); got != tc.want {
			t.Errorf("shrinkBudget(%s, %s) = %s, want %s", tc.shrink, tc.took, got, tc.want)
		}
	}
}

// Root causes first: a bug whose minimal plan is inside another's comes
// before it, whatever their severity; unrelated bugs by severity.
func TestOrderBugs(t *testing.T) {
	refused := c1("A", "k1", 0)
	refused.Encoding = 4
	otherRefused := refused
	otherRefused.Tenant = "B"
	bug := func(id checks.ID, p model.Plan) *Failure { return &Failure{Check: id, Plan: p} }
	leak := bug(checks.TenantLeak, planOf(seqOf(c1("A", "k1", 0), otherRefused)))
	status := bug(checks.WrongStatus, planOf(seqOf(refused)))
	changed := bug(checks.ChangedAccepted, planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 1))))
	dup := bug(checks.DuplicateEffect, planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))))
	bugs := []*Failure{leak, changed, dup, status}
	orderBugs(bugs)
	var got []checks.ID
	for _, b := range bugs {
		got = append(got, b.Check)
	}
	// The refused re-encoding (008) is inside the tenant leak's plan
	// (B/k1 renamed A/k1): it leads. 001 and 004 derive from nothing.
	want := []checks.ID{checks.DuplicateEffect, checks.ChangedAccepted, checks.WrongStatus, checks.TenantLeak}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v: the refused re-encoding (IDEM-008) before the tenant leak it causes", got, want)
	}
}
