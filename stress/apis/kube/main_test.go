package kube_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/apitest"
	"github.com/idemstress/idemstress/internal/pgtemp"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { apitest.Main(m, &cluster) }
