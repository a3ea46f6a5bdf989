package apis_test

import (
	"os"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/internal/stresstest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		// Started by a run as the service, not to run tests.
		os.Exit(serveProcess())
	}
	pgtest.Main(m, &cluster)
}

// What the end-to-end binaries share (internal/stresstest), by the short
// names the tests use.
var (
	call           = stresstest.Call
	burst          = stresstest.Burst
	faulted        = stresstest.Faulted
	assertAllFired = stresstest.AssertAllFired
	skeleton       = stresstest.Skeleton
)
