package stress

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// Which pairs of plans may be one mistake seen with and without the retry
// that follows a fault, whichever was reported first.
func TestAfterOneFault(t *testing.T) {
	errored := c1("A", "k1", 0)
	errored.Fault = model.FaultDBError
	crashed := c1("A", "k1", 0)
	crashed.Fault = model.FaultCrash
	fail := func(p model.Plan) *Failure { return &Failure{Plan: p} }
	alone := fail(planOf(seqOf(errored)))
	retried := fail(planOf(seqOf(errored, c1("A", "k1", 0))))
	renamed := fail(planOf(seqOf(c1("B", "k2", 0))))
	renamed.Plan.Steps[0].Calls[0].Fault = model.FaultDBError
	crashAlone := fail(planOf(seqOf(crashed), one(restartStep)))
	crashRetried := fail(planOf(seqOf(crashed), one(restartStep), seqOf(c1("A", "k1", 0))))
	for _, tc := range []struct {
		name string
		b, f *Failure
		rich *Failure
	}{
		{"the retry's duplicate after the partial effect", alone, retried, retried},
		{"the partial effect after the retry's duplicate", retried, alone, retried},
		{"tenants and keys renamed", renamed, retried, retried},
		{"a crash, its restart and the retry", crashAlone, crashRetried, crashRetried},
		{"a changed payload is no retry", alone, fail(planOf(seqOf(errored, c1("A", "k1", 1)))), nil},
		{"another action's call is no retry", alone, fail(planOf(seqOf(errored, c1("A", "k2", 0)))), nil},
		{"no fault: two calls are a sequential retry", fail(planOf(seqOf(c1("A", "k1", 0)))), fail(planOf(seqOf(c1("A", "k1", 0), c1("A", "k1", 0)))), nil},
		{"the same plan", alone, fail(planOf(seqOf(errored))), nil},
	} {
		rich, ok := afterOneFault(tc.b, tc.f)
		if ok != (tc.rich != nil) || rich != tc.rich {
			t.Errorf("%s: rich %v (ok %v), want %v", tc.name, rich, ok, tc.rich)
		}
	}
}

// A fault's partial effect heads the row before the duplicate its retry
// makes, though a duplicate is the more severe check: the plan without
// the retry is the plainer.
func TestHeadFirstPrefersThePlanWithoutTheRetry(t *testing.T) {
	errored := c1("A", "k1", 0)
	errored.Fault = model.FaultDBError
	partial := &Failure{Check: checks.MissingEffect, Plan: planOf(seqOf(errored))}
	duplicate := &Failure{Check: checks.DuplicateEffect, Plan: planOf(seqOf(errored, c1("A", "k1", 0)))}
	if headFirst(partial, duplicate) >= 0 || headFirst(duplicate, partial) <= 0 {
		t.Errorf("headFirst(partial, duplicate) = %d, want the partial effect first", headFirst(partial, duplicate))
	}
}
