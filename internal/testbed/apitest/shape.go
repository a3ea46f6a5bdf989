package apitest

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// How many plans a run tries. The first plans of a run are dealt one
// planned fault each (the shapes' contracts deal 7: lose-reply and
// db-error alone and with their retry, drop-request, double-delivery,
// delay), so that a short run still tries every kind: a correct service
// passes Plans, which leaves more than as many again drawn at random
// (AssertPasses checks that every kind fired and every failure dealt was
// tried); a bug, found within the first few, meets every dealt fault in
// BugPlans, and each later plan that fails again must be told the same
// bug (AssertCaught wants one row); its minimal plan shrinks in seconds,
// within BugShrinkTime.
const (
	Plans         = 30
	BugPlans      = 20
	BugShrinkTime = 30 * time.Second
)

// RunShape runs a shape's contract against its correct service, which must
// pass with every fault fired, and against each planted bug, which must be
// caught as its BugCase says: all at once, each on a database of its own
// (the runs mostly wait; see Main). start serves the service in a mode (""
// correct) and returns its base URL and database URL.
func RunShape(t *testing.T, yaml string, start func(t *testing.T, bug string) (string, string), bugs []BugCase) {
	t.Helper()
	t.Run("correct", func(t *testing.T) {
		t.Parallel()
		base, dbURL := start(t, "")
		cfg := Contract(t, yaml, base, dbURL, Plans)
		AssertPasses(t, cfg, Run(t, cfg))
	})
	for _, bc := range bugs {
		t.Run(bc.Bug, func(t *testing.T) {
			if testing.Short() {
				t.Skip("a bug's run searches all its plans after the bug, a minute or so")
			}
			t.Parallel()
			base, dbURL := start(t, bc.Bug)
			cfg := Contract(t, yaml, base, dbURL, BugPlans)
			cfg.ShrinkTime = BugShrinkTime
			AssertCaught(t, bc, Run(t, cfg))
		})
	}
}

// StepsOf is its arguments, a plan's steps.
func StepsOf(steps ...model.Step) []model.Step { return steps }
