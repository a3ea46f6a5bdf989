// Package pgtest gives a test binary one throwaway PostgreSQL cluster and
// each test a database of its own.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/pgtemp"
)

// Main is a TestMain body: it starts a cluster and stores it in *cluster,
// runs the tests, closes the cluster, fails the binary if a goroutine was
// left behind, and exits.
func Main(m *testing.M, cluster **pgtemp.Cluster) {
	os.Exit(run(m, cluster))
}

func run(m *testing.M, cluster **pgtemp.Cluster) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	c, err := pgtemp.Start(ctx, pgtemp.Options{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need a local PostgreSQL installation:", err)
		return 1
	}
	*cluster = c
	code := m.Run()
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the test cluster:", err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	return code
}

var seq atomic.Int64

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// NewDatabase creates an empty database named after the test and returns
// its URL.
func NewDatabase(tb testing.TB, c *pgtemp.Cluster) string {
	tb.Helper()
	name := fmt.Sprintf("t%d_%s", seq.Add(1), unsafeChars.ReplaceAllString(strings.ToLower(tb.Name()), "_"))
	if len(name) > 63 {
		name = name[:63]
	}
	url, err := c.CreateDatabase(context.Background(), name)
	if err != nil {
		tb.Fatal(err)
	}
	return url
}
