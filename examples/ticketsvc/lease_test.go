package ticketsvc_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
)

// shortLeaseScenario: a call held at its notification past its claim's
// lease while its retry arrives: short-lease's retry takes the expired
// claim over and creates too, so both are answered 201 with two tickets.
// The correct mode answers the retry in_flight (the original still holds
// the action's lock).
func shortLeaseScenario(e *env) (bool, string) {
	outbox := dbstall.Stall{Pool: e.pool, Table: "notification_outbox", Wait: 5 * time.Second}
	var first, retry answer
	call := func(a *answer) func(context.Context, *atomic.Int64) {
		return func(ctx context.Context, answered *atomic.Int64) {
			var err error
			if *a, err = e.post(ctx, "A", "k", `{"subject":"x"}`); err == nil {
				answered.Add(1)
			}
		}
	}
	rep, err := outbox.Overrun(e.t.Context(), ticketsvc.ShortLease+50*time.Millisecond, call(&first), call(&retry))
	if err != nil {
		e.t.Fatal(err)
	}
	tickets, _, _ := e.counts()
	shown := rep.Fired && first.status == http.StatusCreated && retry.status == http.StatusCreated &&
		first.id != retry.id && tickets == 2
	return shown, fmt.Sprintf("held %+v, answers %v %v, tickets %d", rep, first, retry, tickets)
}
