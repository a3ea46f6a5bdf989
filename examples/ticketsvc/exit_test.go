package ticketsvc_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/internal/fault/dbstall"
)

// exitsOnDBErrorScenario: a call's database session is ended while it
// waits on its write to notification_outbox (db-error's way). The
// exits-on-db-error mode exits (the test's Options.Exit sees it) and the
// call gets no answer; the correct mode answers 500 and goes on.
func exitsOnDBErrorScenario(e *env) (bool, string) {
	outbox := dbstall.Stall{Pool: e.pool, Table: "notification_outbox", Wait: 5 * time.Second}
	var a answer
	var err error
	rep, ferr := outbox.Fail(e.t.Context(), func(ctx context.Context, answered *atomic.Int64) {
		a, err = e.post(ctx, "A", "k", `{"subject":"x"}`)
		if err == nil {
			answered.Add(1)
		}
	})
	if ferr != nil {
		e.t.Fatal(ferr)
	}
	shown := rep.Fired && e.exits.Load() == 1 && err != nil
	return shown, fmt.Sprintf("fault %+v, answer %v (error %v), exits %d", rep, a, err, e.exits.Load())
}
