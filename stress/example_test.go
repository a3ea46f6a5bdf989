package stress_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/stress"
)

// Run a contract file against a service: the same as `idemstress run`, as a
// library call. (Compiled, not run: it needs your service.)
func ExampleRun() {
	ctx := context.Background()
	contract, err := stress.LoadContract("testdata/contract.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	tgt, err := client.NewHTTP(contract.Target, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	world := gen.DefaultWorld()
	world.KeyRequired = contract.KeyRequired
	res, err := stress.Run(ctx, stress.Config{
		Contract: contract.Model, Effects: contract.Effects,
		Target: tgt, DB: pool, World: world, Plans: 200,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Verdict)
}
