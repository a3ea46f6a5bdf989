package google_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/apitest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { apitest.Main(m, &cluster) }
