package graphql_test

import (
	"os"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/apitest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		// Started by a run as the service, not to run tests.
		os.Exit(serveProcess())
	}
	apitest.Main(m, &cluster)
}
