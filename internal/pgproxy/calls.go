package pgproxy

import (
	"sync"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

// Call is a live call of the registry: the marker byte strings that tie a
// session to it (its idempotency key, tag, tenant as the service sends
// them) and the trace of the points its sessions passed. Its Name, SetAt
// (a hook of its own, consulted at its points in place of Options.At),
// Trace, Injected and Untie are wireproxy.Call's.
type Call struct {
	*record

	mu         sync.Mutex
	statements int // statements seen, COMMIT included
	txs        int // transactions tied
	ended      int // tied transactions ended
}

// record is what the proxies keep alike of a call.
type record = wireproxy.Call[Point, Action, Step, Injection]

// Injection is an error or a cut the proxy delivered to one of a call's
// sessions at a point: the client read the server's ErrorResponse raised
// in the statement's place, or a terminated backend's FATAL error, or lost
// its connection. An Error whose raised statement the server skipped (an
// earlier message of the client's pipeline had failed) is not one.
type Injection struct {
	Kind  Kind
	Index int
	// Code is the SQLSTATE dealt; "" for Cut.
	Code string
}

// Tie registers a live call: from now on a session whose statement text or
// bound parameters contain one of markers (empty ones are ignored) is tied
// to it until its transaction ends, so the later statements of that
// transaction belong to the call without carrying a marker. A statement
// of the transaction before the first one with a marker is not the
// call's: the proxy cannot know it yet. Untie the call when it is over; a
// session tied to it stays tied until its transaction ends.
func (p *Proxy) Tie(name string, markers ...[]byte) *Call {
	c := &Call{}
	c.record = wireproxy.NewCall[Point, Action, Step, Injection](name, func() { p.calls.Remove(c) })
	p.calls.Add(c, markers)
	return c
}

// match is the first live call one of whose markers sql or params contain.
func (p *Proxy) match(sql string, params [][]byte) *Call {
	return p.calls.Match(append([][]byte{[]byte(sql)}, params...)...)
}

// begin counts a statement of the call and says whether it opens a new
// transaction of the call after an ended one.
func (c *Call) begin(newTx bool) (index, tx int, between bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if newTx {
		between = c.ended > 0
		c.txs++
	}
	c.statements++
	return c.statements, c.txs, between
}

func (c *Call) endTx() {
	c.mu.Lock()
	c.ended++
	c.mu.Unlock()
}

func (c *Call) inject(i Injection) { wireproxy.Inject(c.record, i) }

// consult records the point in the call's trace and asks the call's hook,
// else Options.At.
func (p *Proxy) consult(c *Call, pt Point) Action {
	pt.Call = c.Name()
	step := Step{Kind: pt.Kind, Index: pt.Index, Tx: pt.Tx, Fingerprint: Fingerprint(pt.SQL)}
	return wireproxy.Consult(c.record, pt, step, p.opts.At)
}
