package dbstall_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
)

// A db-stall around a burst: both calls reach their write to tickets while
// the table is locked, and are released together.
func ExampleStall_Run() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://tester@127.0.0.1:5432/app")
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	stall := dbstall.Stall{Pool: pool, Table: "tickets"}
	if err := stall.Check(ctx); err != nil {
		panic(err) // e.g. ... GRANT UPDATE ON tickets TO tester
	}
	var ex []client.Exchange
	rep, err := stall.Run(ctx, 2, func(ctx context.Context, answered *atomic.Int64) {
		var reqs []*http.Request
		for range 2 {
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8080/tickets", strings.NewReader(`{"subject":"s"}`))
			req.Header.Set("Idempotency-Key", "k1")
			reqs = append(reqs, req)
		}
		ex = client.Release(ctx, reqs, client.ReleaseOptions{Answered: answered})
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Fired, len(ex))
}
