package stress_test

import (
	"testing"

	"github.com/idemstress/idemstress/stress"
)

// TestIdempotency goes in a _test.go file next to your service (here it is
// testIdempotency, so that this file stays an example): the contract
// file says how to call the service and where its rows are. With a process
// section in it, idemstress starts the service (its replicas, and a
// throwaway PostgreSQL when no database is given) as `idemstress run` does.
func testIdempotency(t *testing.T) {
	cfg, err := stress.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plans = 200
	stress.Check(t, cfg)
}

func Example_goTest() {}
