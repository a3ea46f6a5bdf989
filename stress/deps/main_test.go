package deps_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { stresstest.Main(m, &cluster) }

// What the end-to-end binaries share (internal/testbed/stresstest), by the short
// names the tests use.
var (
	call                  = stresstest.Call
	faulted               = stresstest.Faulted
	assertAllFired        = stresstest.AssertAllFired
	assertEveryPointTried = stresstest.AssertEveryPointTried
	skeleton              = stresstest.Skeleton
	sampleBinary          = stresstest.SampleBinary
)
