package apitest

import (
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// Parallel is how many tests a shape's binary runs at once unless
// -test.parallel says otherwise: a correct service's run and each planted
// bug's, and the process runs beside them (graphql has seven). A run
// mostly waits (db-stall windows, delays, the proxy, shrinking), each on
// a database of its own, so they overlap well past the two cores the
// default (GOMAXPROCS) would allow.
const Parallel = 8

// Main is a shape's TestMain body: pgtest.Main, with -test.parallel
// raised to Parallel when the command line did not set it.
func Main(m *testing.M, cluster **pgtemp.Cluster) {
	pgtest.RaiseParallel(Parallel)
	pgtest.Main(m, cluster)
}
