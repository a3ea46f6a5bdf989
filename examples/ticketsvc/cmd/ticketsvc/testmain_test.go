package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"go.uber.org/goleak"
)

// cluster is this test binary's throwaway PostgreSQL; every test creates
// its own database on it.
var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	c, err := pgtemp.Start(ctx, pgtemp.Options{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need a local PostgreSQL installation:", err)
		return 1
	}
	cluster = c
	code := m.Run()
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "stop test cluster:", err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
	}
	return code
}
