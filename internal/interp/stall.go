package interp

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// stalled runs a burst, under the db-stall nemesis when there is one: the
// statement barrier in the database proxy where one stands, else the
// table lock.
func (x *execution) stalled(ctx context.Context, calls []model.Call) error {
	if x.Barrier == nil && x.Stall == nil {
		ops, err := x.burst(ctx, x.ns, calls, x.t0, nil, nil)
		x.add(ops)
		return err
	}
	var ops []model.Op
	var burstErr error
	ev := model.FaultEvent{Kind: model.FaultDBStall, Step: x.step, Start: x.now()}
	var report fault.StallReport
	var err error
	if x.Barrier != nil {
		report, err = x.Barrier.Run(ctx, len(calls), func(ctx context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64) {
			ops, burstErr = x.burst(ctx, x.ns, calls, x.t0, answered, at)
		})
	} else {
		report, err = x.Stall.Run(ctx, len(calls), func(ctx context.Context, answered *atomic.Int64) {
			ops, burstErr = x.burst(ctx, x.ns, calls, x.t0, answered, nil)
		})
	}
	ev.End = x.now()
	ev.Ops = x.add(ops)
	if err != nil {
		return cmp.Or(ctx.Err(), fmt.Errorf("%w: db-stall: %w", ErrInfrastructure, err))
	}
	// The nemesis operation ends when it lets the burst go, not when the
	// burst is over: a call still unanswered long after that hung in the
	// service (checks: IDEM-014).
	if !report.Released.IsZero() {
		ev.End = int64(report.Released.Sub(x.t0))
	}
	ev.Fired, ev.Held = report.Fired, report.Blocked
	if !report.Fired {
		ev.Note = x.unstalled(report, len(calls))
	}
	x.h.Faults = append(x.h.Faults, ev)
	return burstErr
}

// unstalled says why a db-stall did not fire (no times or counts of
// anything but the burst's requests).
func (x *execution) unstalled(report fault.StallReport, n int) string {
	if x.Barrier != nil {
		return fmt.Sprintf("%d of %d requests held at their first write in the database proxy, the others neither reached a write nor were answered within the nemesis's wait: "+
			"a write inside a function (SELECT create_ticket($1)) or in a statement that carries none of the call's key, tag or tenant is not seen; "+
			"on a machine so loaded that requests take seconds to arrive, run fewer things beside it", report.Blocked, n)
	}
	// A request that waits for one of the service's database
	// connections holds no lock the nemesis can see.
	return fmt.Sprintf("%d of %d requests blocked on %s, the others neither blocked nor were answered within the nemesis's wait: "+
		"a request waiting for a connection of the service's database pool is invisible to it (pgx's pool holds 4 by default); "+
		"give the pool at least as many connections as a burst has calls, or draw smaller bursts, or let idemstress start the service "+
		"(process:), whose database proxy sees such requests; "+
		"on a machine so loaded that requests take seconds to arrive, run fewer things beside it", report.Blocked, n, x.Stall.Table)
}
