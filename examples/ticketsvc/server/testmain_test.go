package server

import (
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// cluster is this test binary's throwaway PostgreSQL; every test creates
// its own database on it.
var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }
