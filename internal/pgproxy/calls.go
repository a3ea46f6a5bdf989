package pgproxy

import (
	"bytes"
	"slices"
	"sync"
)

// Call is a live call of the registry: the marker byte strings that tie a
// session to it (its idempotency key, tag, tenant as the service sends
// them) and the trace of the points its sessions passed.
type Call struct {
	name    string
	markers [][]byte
	p       *Proxy

	mu         sync.Mutex
	at         func(Point) Action // SetAt's hook; nil: Options.At
	statements int                // statements seen, COMMIT included
	txs        int                // transactions tied
	ended      int                // tied transactions ended
	trace      []Step
	injected   []Injection
}

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

// Injected lists the errors and cuts delivered to the call's sessions so
// far, in order: a fault that answers a point with Error or Cut fired
// when it is here.
func (c *Call) Injected() []Injection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.injected)
}

func (c *Call) inject(i Injection) {
	c.mu.Lock()
	c.injected = append(c.injected, i)
	c.mu.Unlock()
}

// Tie registers a live call: from now on a session whose statement text or
// bound parameters contain one of markers (empty ones are ignored) is tied
// to it until its transaction ends, so the later statements of that
// transaction belong to the call without carrying a marker. A statement
// of the transaction before the first one with a marker is not the
// call's: the proxy cannot know it yet. Untie the call when it is over.
func (p *Proxy) Tie(name string, markers ...[]byte) *Call {
	c := &Call{name: name, p: p}
	for _, m := range markers {
		if len(m) > 0 {
			c.markers = append(c.markers, bytes.Clone(m))
		}
	}
	p.mu.Lock()
	p.calls = append(p.calls, c)
	p.mu.Unlock()
	return c
}

// Untie removes the call from the registry; a session tied to it stays
// tied until its transaction ends.
func (c *Call) Untie() {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.calls = slices.DeleteFunc(c.p.calls, func(o *Call) bool { return o == c })
}

// SetAt gives the call a hook of its own, consulted at its points in
// place of Options.At (nil: Options.At again): a fault answers Error or
// Hold for its own call while another's answers otherwise. Set it before
// the call is sent; it may be changed while the call runs.
func (c *Call) SetAt(at func(Point) Action) {
	c.mu.Lock()
	c.at = at
	c.mu.Unlock()
}

func (c *Call) hook() func(Point) Action {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

// Name is the name the call was tied under.
func (c *Call) Name() string { return c.name }

// Trace is the ordered list of points the call's sessions passed, whatever
// the hook answered: from an unfaulted run, the crash points of the call.
func (c *Call) Trace() []Step {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.trace)
}

// match is the first live call one of whose markers sql or params contain.
func (p *Proxy) match(sql string, params [][]byte) *Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		for _, m := range c.markers {
			if bytes.Contains([]byte(sql), m) {
				return c
			}
			for _, v := range params {
				if bytes.Contains(v, m) {
					return c
				}
			}
		}
	}
	return nil
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

func (c *Call) record(pt Point) {
	c.mu.Lock()
	c.trace = append(c.trace, Step{Kind: pt.Kind, Index: pt.Index, Tx: pt.Tx, Fingerprint: Fingerprint(pt.SQL)})
	c.mu.Unlock()
}
