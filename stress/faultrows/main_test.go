package faultrows_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { stresstest.Main(m, &cluster) }

// sampleBinary is the sample's binary, built once (internal/testbed/stresstest).
var sampleBinary = stresstest.SampleBinary

// Issue 26.7: one bug is one row, for the process modes a fault at the
// database work shows; stress/procrows counts the rest.
func TestFaultModesOneRowPerBug(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes for every mode")
	}
	modes := stresstest.ProcessModes(func(m string) bool { return slices.Contains(stresstest.FaultRowsModes, m) })
	if len(modes) != len(stresstest.FaultRowsModes) {
		t.Fatalf("modes %q, want every one of %q: a mode was renamed or is no process mode", modes, stresstest.FaultRowsModes)
	}
	stresstest.OneRowPerBug(t, cluster, sampleBinary(t), modes)
}
