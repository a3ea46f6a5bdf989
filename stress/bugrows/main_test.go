package bugrows_test

import (
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { stresstest.Main(m, &cluster) }

// startSample serves the sample service in one mode and layout over a new
// database of this binary's cluster.
func startSample(t *testing.T, mode string, layout ticketsvc.Layout) *sample.Service {
	return stresstest.StartSample(t, cluster, mode, layout)
}
