package stress_test

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/stress"
)

// Run a contract file against a service: the same as `idemstress run`, as a
// library call. (Compiled, not run: it needs your service.)
func ExampleRun() {
	cfg, err := stress.Load("testdata/contract.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.Plans, cfg.Seed = 200, 7
	res, err := stress.Run(context.Background(), cfg)
	if err != nil {
		fmt.Println(err) // the contract or the schema is wrong (exit code 2)
		return
	}
	fmt.Println(res.Verdict)
}
