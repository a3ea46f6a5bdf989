package nemesis

import (
	"cmp"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// Burst runs a burst under the db-stall nemesis when the run has one: the
// statement barrier in the database proxy where one stands, else the
// table lock; with neither, the burst goes as it is.
func (p *planFaults) Burst(ctx context.Context, n int, burst Burst) (BurstOutcome, error) {
	var report dbstall.StallReport
	var err error
	switch {
	case p.Barrier != nil:
		report, err = p.Barrier.Run(ctx, n, func(ctx context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64) {
			burst(ctx, at, answered)
		})
	case p.Stall != nil:
		report, err = p.Stall.Run(ctx, n, func(ctx context.Context, answered *atomic.Int64) {
			burst(ctx, nil, answered)
		})
	default:
		burst(ctx, nil, nil)
		return BurstOutcome{}, nil
	}
	out := BurstOutcome{Kind: model.FaultDBStall}
	if err != nil {
		return out, cmp.Or(ctx.Err(), fmt.Errorf("%w: db-stall: %w", fault.ErrInfrastructure, err))
	}
	// The nemesis operation ends when it lets the burst go, not when the
	// burst is over: a call still unanswered long after that hung in the
	// service (checks: IDEM-014).
	out.Fired, out.Held, out.Released = report.Fired, report.Blocked, report.Released
	if !report.Fired {
		out.Note = p.unstalled(report, n)
	}
	return out, nil
}

// unstalled says why a db-stall did not fire (no times or counts of
// anything but the burst's requests).
func (p *planFaults) unstalled(report dbstall.StallReport, n int) string {
	if p.Barrier != nil {
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
		"on a machine so loaded that requests take seconds to arrive, run fewer things beside it", report.Blocked, n, p.Stall.Table)
}
