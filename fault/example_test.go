package fault_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/fault"
)

// Three calls with the same idempotency key, released at the same instant.
func ExampleBurst() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"key":%q}`, r.Header.Get("Idempotency-Key"))
	}))
	defer srv.Close()

	var reqs []*http.Request
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/tickets", strings.NewReader(`{"subject":"printer on fire"}`))
		req.Header.Set("Idempotency-Key", "k1")
		reqs = append(reqs, req)
	}
	for _, ex := range fault.Burst(context.Background(), reqs, fault.BurstOptions{}) {
		fmt.Println(ex.Resp.StatusCode, string(ex.Body))
	}
	// Output:
	// 201 {"key":"k1"}
	// 201 {"key":"k1"}
	// 201 {"key":"k1"}
}

// A db-stall around a burst: both calls reach their write to tickets while
// the table is locked, and are released together.
func ExampleStall_Run() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://tester@127.0.0.1:5432/app")
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	stall := fault.Stall{Pool: pool, Table: "tickets"}
	if err := stall.Check(ctx); err != nil {
		panic(err) // e.g. ... GRANT UPDATE ON tickets TO tester
	}
	var ex []fault.Exchange
	rep, err := stall.Run(ctx, 2, func(ctx context.Context, answered *atomic.Int64) {
		var reqs []*http.Request
		for range 2 {
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8080/tickets", strings.NewReader(`{"subject":"s"}`))
			req.Header.Set("Idempotency-Key", "k1")
			reqs = append(reqs, req)
		}
		ex = fault.Burst(ctx, reqs, fault.BurstOptions{Answered: answered})
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Fired, len(ex))
}
