package ticketsvc_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// cluster is this test binary's throwaway PostgreSQL; every test creates
// its own database on it.
var cluster *pgtemp.Cluster

// Example and ExampleForBug use the cluster directly; a -short run without
// PostgreSQL leaves them out.
func TestMain(m *testing.M) { pgtest.Main(m, &cluster, "Example", "ExampleForBug") }
