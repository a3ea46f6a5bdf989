package stress

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
)

// These tests pin the shrinker's candidates; they need no service and no
// database.

// A tenant leak and a folded key are one bug to the shrinker; every other
// pair of checks is two.
func TestSameBug(t *testing.T) {
	if !sameBug(checks.TenantLeak, checks.KeysFolded) || !sameBug(checks.KeysFolded, checks.TenantLeak) || !sameBug(checks.DuplicateEffect, checks.DuplicateEffect) {
		t.Error("a confusion between actions is one bug")
	}
	if sameBug(checks.TenantLeak, checks.DuplicateEffect) || sameBug(checks.ChangedAccepted, checks.EqualRejected) {
		t.Error("different checks are different bugs")
	}
}
