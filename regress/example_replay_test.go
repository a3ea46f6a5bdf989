package regress_test

import (
	"testing"

	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// TestRegressions goes in a _test.go file next to your service (here it is
// testRegressions, so that this file stays an example): every case file
// that `idemstress run` wrote into idemstress-cases/ and you copied into
// testdata/cases is replayed, one subtest per case, failing when its
// check fires again.
func testRegressions(t *testing.T) {
	cfg, err := stress.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	regress.Replay(t, cfg, "testdata/cases")
}

func ExampleReplay() {}

var _ = testRegressions
