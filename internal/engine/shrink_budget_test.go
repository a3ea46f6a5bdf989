package engine

import (
	"testing"
	"time"
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
