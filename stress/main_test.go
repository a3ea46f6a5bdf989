package stress_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/sample"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	c, err := pgtemp.Start(ctx, pgtemp.Options{})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "stress tests need PostgreSQL: %v\n", err)
		os.Exit(1)
	}
	cluster = c
	code := m.Run()
	if err := cluster.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "closing the test cluster: %v\n", err)
	}
	os.Exit(code)
}

var databases atomic.Int64

// newDatabase makes an empty database of the test's own.
func newDatabase(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%s", databases.Add(1), strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name())))
	if len(name) > 63 {
		name = name[:63]
	}
	url, err := cluster.CreateDatabase(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// startSample serves the sample service in one mode over a new database.
func startSample(t *testing.T, mode string) *sample.Service {
	t.Helper()
	svc, err := sample.Start(t.Context(), newDatabase(t), mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}
