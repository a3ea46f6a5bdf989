package stress_test

import (
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/internal/sample"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// startSample serves the sample service in one mode and layout over a new
// database.
func startSample(t *testing.T, mode string, layout ticketsvc.Layout) *sample.Service {
	t.Helper()
	svc, err := sample.Start(t.Context(), pgtest.NewDatabase(t, cluster), mode, layout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}
