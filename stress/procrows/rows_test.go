package procrows_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

// Issue 26.7: one bug is one row, for the bug modes the demo runs as
// processes too (restarts, crashes, database errors, slow originals),
// run as `idemstress run` runs them: every bug the plans show, not the
// demo's first. stress/bugrows's TestOneRowPerBug counts the in-process
// ones. memory-keys was two rows before: after a restart the forgotten
// key also takes a changed payload (IDEM-004, A/k1 v0; restart; A/k1 v1),
// now listed under the duplicate's row (internal/sighting/over.go).
func TestProcessModesOneRowPerBug(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes for every mode")
	}
	t.Parallel() // beside TestStuckInFlightCaughtOnEverySeed's seeds
	modes := stresstest.ProcessModes(func(m string) bool { return !slices.Contains(stresstest.FaultRowsModes, m) })
	stresstest.OneRowPerBug(t, cluster, sampleBinary(t), modes)
}
