package stress_test

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/stress"
)

// A check that fired only in failures attributed to a reported bug (a race
// explained by the bug its calls show in sequence) failed in the run: it is
// never reported "passed" beside them.
func TestAttributedChecksAreNotPassed(t *testing.T) {
	cov := coverage.Coverage{coverage.Called: 10, coverage.Burst: 4, coverage.SequentialRetry: 3}
	res := &stress.Result{Verdict: checks.Fail, Coverage: cov}
	if got := res.Statuses()[checks.NotLinearizable]; got != checks.Passed {
		t.Fatalf("IDEM-013 with nothing fired: %s, want passed", got)
	}
	res.AttributedChecks = []checks.ID{checks.NotLinearizable}
	if got := res.Statuses()[checks.NotLinearizable]; got != checks.Failed {
		t.Errorf("IDEM-013 fired by an attributed failure: %s, want failed", got)
	}
}
