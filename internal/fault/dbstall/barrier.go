package dbstall

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

// Barrier is the db-stall nemesis through the database proxy: every call
// of a burst is held at its first write (pgproxy.Writes: INSERT, UPDATE,
// DELETE, MERGE, SELECT ... FOR UPDATE) until each call of the burst has
// reached it or been answered, then all go on at once. As with Stall,
// every request has done its reads before any of them writes, so a
// check-then-insert race happens every time; unlike Stall it takes no
// lock and needs no grant, and it sees a call waiting for one of the
// service's pool connections: once every session the service has open is
// held and it has as many open as it ever had (Proxy.Held reaches
// Proxy.Open and Proxy.Peak, steadily for barrierSettle), no call still
// on its way can get a connection, and each counts as held. A pool
// smaller than a burst is then no reason for an unfired stall. A call
// waiting on a lock inside the service (an in-process mutex) while the
// pool could open another connection is not counted: the stall is then
// unfired, as the table lock's is.
type Barrier struct {
	// DB is the proxy in front of the service's database.
	DB *pgproxy.Proxy
	// Wait bounds how long the calls are given to arrive, as Stall.Wait.
	Wait time.Duration
}

// barrierSettle is how long every open session must stay held before the
// calls still on their way count as waiting for a connection: a pool
// opening a connection for one of them shows in Proxy.Open within it.
const barrierSettle = 25 * time.Millisecond

// Run releases a burst of n calls held at their first writes. burst sends
// them, each tied to the proxy with at as the hook of its sessions, and
// increments answered as each answer is read. Run returns once burst has
// returned; the hold is let go whatever happens (ctx ends, burst
// panics: Run then panics with the same value).
func (b Barrier) Run(ctx context.Context, n int, burst func(ctx context.Context, at func(pgproxy.Point) pgproxy.Action, answered *atomic.Int64)) (StallReport, error) {
	if b.DB == nil {
		return StallReport{}, errors.New("fault: db-stall: no database proxy (Barrier.DB)")
	}
	g := &gate{release: make(chan struct{})}
	var answered atomic.Int64
	done := goReporting(ctx, &answered, func(ctx context.Context, answered *atomic.Int64) {
		burst(ctx, g.at, answered)
	})
	rep, over, err := b.watch(ctx, g, int64(n), &answered, done)
	g.open()
	rep.Released = time.Now()
	if over == nil {
		over = <-done
	}
	if over != nil && over.value != nil {
		panic(over.value)
	}
	return rep, err
}

// watch waits until every call is held or answered (or waits for a
// connection), Wait passes, ctx ends or burst returns.
func (b Barrier) watch(ctx context.Context, g *gate, n int64, answered *atomic.Int64, done <-chan *panicked) (StallReport, *panicked, error) {
	wait := positiveOr(b.Wait, DefaultStallWait)
	start := time.Now()
	deadline, last, seen := start.Add(MaxStallWaits*wait), start.Add(MaxStallWaits*wait), int64(0)
	var starved time.Time // since when every open session is held
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var rep StallReport
	var over *panicked
	for {
		held, a := g.count(), answered.Load()
		rep.Blocked = int(held)
		switch {
		case held+a >= n:
			rep.Fired = true
			return rep, over, nil
		case held > 0 && b.DB.Held() >= max(b.DB.Open(), b.DB.Peak()):
			if starved.IsZero() {
				starved = time.Now()
			} else if time.Since(starved) >= barrierSettle {
				rep.Fired = true // the rest wait for a connection
				return rep, over, nil
			}
		default:
			starved = time.Time{}
		}
		if held+a > seen {
			seen, deadline = held+a, time.Now().Add(wait)
			if deadline.After(last) {
				deadline = last
			}
		}
		if over != nil || !time.Now().Before(deadline) {
			return rep, over, nil
		}
		select {
		case <-ctx.Done():
			return rep, over, fmt.Errorf("fault: db-stall through the database proxy: %w", context.Cause(ctx))
		case over = <-done:
			if over == nil {
				over = &panicked{}
			}
		case <-tick.C:
		}
	}
}

// gate holds the sessions of a burst's calls at their first writes until
// opened; after that it holds nothing.
type gate struct {
	release chan struct{}
	mu      sync.Mutex
	opened  bool
	held    int64
}

// at is the hook of the burst's calls: Hold before a write, while the
// gate is shut (so at most once a session: a held session writes nothing
// before the gate opens).
func (g *gate) at(pt pgproxy.Point) pgproxy.Action {
	if pt.Kind != pgproxy.BeforeStatement || !pgproxy.Writes(pt.SQL) {
		return pgproxy.Continue
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.opened {
		return pgproxy.Continue
	}
	g.held++
	return pgproxy.Hold(g.release)
}

func (g *gate) count() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.opened {
		g.opened = true
		close(g.release)
	}
}
