package shrink

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// The sub-plan relation that defines a root cause.
func TestSubPlan(t *testing.T) {
	refused := c1("A", "k1", 0)
	refused.Encoding = 4
	for _, tc := range []struct {
		name       string
		small, big model.Plan
		want       bool
	}{
		{"one call inside two, renamed", planOf(seqOf(refused)), planOf(seqOf(c1("A", "k1", 0), model.Call{Tenant: "B", Key: "k1", Encoding: 4})), true},
		{"in a burst", planOf(seqOf(c1("A", "k1", 0))), planOf(one(burstOf(c1("B", "k2", 0), c1("B", "k2", 0)))), true},
		{"not strict", planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))), planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))), false},
		{"another variant", planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))), planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 1), c1("B", "k1", 1))), false},
		{"one renaming for all calls", planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0))), planOf(seqOf(c1("A", "k1", 0), c1("B", "k1", 0), c1("B", "k2", 0))), false},
		{"one-to-one", planOf(seqOf(c1("A", "k1", 0), c1("B", "k1", 0))), planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0), c1("A", "k2", 0))), false},
		{"a restart is an event", planOf(seqOf(c1("A", "k1", 0)), one(restartStep), seqOf(c1("A", "k1", 0))), planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0), c1("A", "k1", 0))), false},
	} {
		if got := SubPlan(tc.small, tc.big); got != tc.want {
			t.Errorf("%s: subPlan(%s, %s) = %v, want %v", tc.name, tc.small.Compact(), tc.big.Compact(), got, tc.want)
		}
	}
}
