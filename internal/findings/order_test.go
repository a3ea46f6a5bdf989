package findings

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

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
	Order(bugs)
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
