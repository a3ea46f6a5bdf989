package respproxy

import (
	"sync"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

// Call is a live call of the registry: the marker byte strings that tie a
// command to it (its idempotency key, tag, tenant as the service sends
// them) and the trace of the points its commands passed. Its Name, SetAt
// (a hook of its own, consulted at its points in place of Options.At),
// Trace (from an unfaulted run, the crash points of the call at this
// server), Injected and Untie are wireproxy.Call's.
type Call struct {
	*record

	mu     sync.Mutex
	index  int            // commands seen
	counts map[string]int // commands seen, by name
}

// record is what the proxies keep alike of a call.
type record = wireproxy.Call[Point, Action, Step, Injection]

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
	c := &Call{counts: map[string]int{}}
	c.record = wireproxy.NewCall[Point, Action, Step, Injection](name, func() { p.calls.Remove(c) })
	p.calls.Add(c, markers)
	return c
}

func (c *Call) inject(i Injection) { wireproxy.Inject(c.record, i) }

// begin counts a command of the call.
func (c *Call) begin(name string) (n, index int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.index++
	c.counts[name]++
	return c.counts[name], c.index
}

// consult records the point in the call's trace and asks the call's hook,
// else Options.At.
func (p *Proxy) consult(c *Call, pt Point) Action {
	pt.Call = c.Name()
	step := Step{Kind: pt.Kind, Command: pt.Command, N: pt.N, Index: pt.Index}
	return wireproxy.Consult(c.record, pt, step, p.opts.At)
}

// match is the first live call one of whose markers an argument of cmd
// (its name aside) contains.
func (p *Proxy) match(cmd command) *Call { return p.calls.Match(cmd.args[1:]...) }
