package respproxy

import (
	"bytes"
	"slices"
	"sync"
)

// Call is a live call of the registry: the marker byte strings that tie a
// command to it (its idempotency key, tag, tenant as the service sends
// them) and the trace of the points its commands passed.
type Call struct {
	name    string
	markers [][]byte
	p       *Proxy

	mu       sync.Mutex
	at       func(Point) Action // SetAt's hook; nil: Options.At
	index    int                // commands seen
	counts   map[string]int     // commands seen, by name
	trace    []Step
	injected []Injection
}

// Injection is an error reply or a cut the proxy delivered to one of a
// call's commands in the server's place.
type Injection struct {
	Kind    Kind
	Command string
	N       int
	// Line is the error reply's text ("READONLY You can't …"); "" for a Cut.
	Line string
}

// Tie registers a live call: from now on a command whose arguments (its
// name aside) contain one of markers (empty ones are ignored) is the
// call's, and so is a MULTI … EXEC block one of whose queued commands
// carries one. Untie the call when it is over.
func (p *Proxy) Tie(name string, markers ...[]byte) *Call {
	c := &Call{name: name, p: p, counts: map[string]int{}}
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

// Untie removes the call from the registry.
func (c *Call) Untie() {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.calls = slices.DeleteFunc(c.p.calls, func(o *Call) bool { return o == c })
}

// SetAt gives the call a hook of its own, consulted at its points in
// place of Options.At (nil: Options.At again). Set it before the call is
// sent; it may be changed while the call runs.
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

// Trace is the ordered list of points the call's commands passed,
// whatever the hook answered: from an unfaulted run, the crash points of
// the call at this server.
func (c *Call) Trace() []Step {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.trace)
}

// Injected lists the error replies and cuts delivered to the call's
// commands so far, in order: a fault that answers a point with Error or
// Cut fired when it is here.
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

// begin counts a command of the call.
func (c *Call) begin(name string) (n, index int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.index++
	c.counts[name]++
	return c.counts[name], c.index
}

func (c *Call) record(pt Point) {
	c.mu.Lock()
	c.trace = append(c.trace, Step{Kind: pt.Kind, Command: pt.Command, N: pt.N, Index: pt.Index})
	c.mu.Unlock()
}

// match is the first live call one of whose markers an argument of cmd
// (its name aside) contains.
func (p *Proxy) match(cmd command) *Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.calls {
		for _, m := range c.markers {
			for _, a := range cmd.args[1:] {
				if bytes.Contains(a, m) {
					return c
				}
			}
		}
	}
	return nil
}
