package stresstest

import (
	"flag"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// Parallel is how many parallel tests an end-to-end binary of stress runs
// at once unless -test.parallel says otherwise. go test's default is
// GOMAXPROCS, made for tests that compute; these mostly wait (restarts,
// recovery times, delivery windows, a service's answers), so more of them
// overlap on two cores. Each has a database and a service of its own, and
// their shrinks run at once (engine's flagsMu holds only a Check's start).
// Six at once, beside other binaries on a loaded machine, left shrinks of
// stress/zoo's TestStableDiagnoses short of minimal within their budget
// (when shrinks still took turns).
const Parallel = 4

// Main is the TestMain body of the end-to-end binaries of stress: the
// parallel default above, then pgtest.Main (a cluster for the binary, a
// database for each test). Under -short, CI's run with the race detector,
// which slows each run several times over, go test's default stands.
func Main(m *testing.M, cluster **pgtemp.Cluster) {
	flag.Parse()
	if !testing.Short() {
		pgtest.RaiseParallel(Parallel)
	}
	pgtest.Main(m, cluster)
}
