package crashpoints_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { stresstest.Main(m, &cluster) }

var (
	skeleton              = stresstest.Skeleton
	assertEveryPointTried = stresstest.AssertEveryPointTried
	sampleBinary          = stresstest.SampleBinaryBesideCluster
)
