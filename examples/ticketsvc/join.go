package ticketsvc

import (
	"context"
	"fmt"
	"sync"
)

// identicalCalls is the hang-on-burst mode's table of requests in flight in
// this process, by what makes two of them identical: tenant, key and
// payload fingerprint. A request identical to one in flight joins it, to
// be answered with its result instead of doing the work twice. The
// mistake: the first request never hands its result over, so a joined one
// waits until its client gives up. One call at a time never joins anyone;
// only a burst of identical calls hangs.
type identicalCalls struct {
	mu    sync.Mutex
	calls map[identical]chan struct{}
}

// identical is what two requests share when one may join the other.
type identical struct{ tenant, lookup, fingerprint string }

func newIdenticalCalls() *identicalCalls {
	return &identicalCalls{calls: map[identical]chan struct{}{}}
}

// join returns at once, with leave to call when the request is done, for
// the first of identical requests; any other waits for it to hand its
// result over, which it never does, until ctx is done.
func (c *identicalCalls) join(ctx context.Context, req createRequest) (leave func(), err error) {
	id := identical{req.tenant, req.lookup, req.fingerprint}
	c.mu.Lock()
	done, busy := c.calls[id]
	if !busy {
		done = make(chan struct{})
		c.calls[id] = done
	}
	c.mu.Unlock()
	if !busy {
		// The mistake: leaving should close done (and hand the outcome to
		// the requests that joined); it only forgets the entry.
		return func() {
			c.mu.Lock()
			delete(c.calls, id)
			c.mu.Unlock()
		}, nil
	}
	select {
	case <-done:
		return func() {}, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for the identical request in flight: %w", ctx.Err())
	}
}
