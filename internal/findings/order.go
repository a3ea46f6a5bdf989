package findings

import (
	"cmp"
	"slices"

	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/shrink"
)

// A run reports its root causes first. Bug B is derived from bug A when
// A's minimal plan is a strict sub-plan of B's (subPlan): every call and
// restart of A's plan, under a renaming of tenants and keys, is in B's, in
// the same order, and B's has more. A is then a mistake B's plan cannot
// help making: a re-encoding the service refuses fails alone (one call,
// IDEM-008), and the same refusal of another tenant's call shows as a
// tenant leak (two calls, IDEM-007), a symptom. A root cause is a bug
// derived from no other reported bug. Bugs are ordered by how many
// reported bugs they are derived from (roots first), then by the
// catalogue's severity.

// Order sorts bugs root causes first, then by severity; the order is
// stable for bugs equal in both.
func Order(bugs []*Failure) {
	depth := make(map[*Failure]int, len(bugs))
	for _, b := range bugs {
		for _, a := range bugs {
			if a != b && shrink.SubPlan(a.Plan, b.Plan) {
				depth[b]++
			}
		}
	}
	slices.SortStableFunc(bugs, func(a, b *Failure) int {
		return cmp.Or(cmp.Compare(depth[a], depth[b]), cmp.Compare(bugid.Rank(a.Check), bugid.Rank(b.Check)))
	})
}
