package wireproxy

import (
	"slices"
	"sync"
)

// Call is what a proxy keeps of a live call whatever its protocol: the
// name it was tied under, the hook of its own that answers at its points,
// the trace of the points its traffic passed, whatever the hook answered,
// and the faults delivered to it. P is the proxy's point, A its action
// (whose zero value lets the traffic go on), S a step of a trace, I a
// fault delivered. A proxy's call embeds it beside its own counts.
type Call[P, A, S, I any] struct {
	name  string
	untie func()

	mu       sync.Mutex
	at       func(P) A // SetAt's hook; nil: the proxy's
	trace    []S
	injected []I
}

// NewCall is a call named name; untie takes it out of its proxy's
// registry.
func NewCall[P, A, S, I any](name string, untie func()) *Call[P, A, S, I] {
	return &Call[P, A, S, I]{name: name, untie: untie}
}

// Name is the name the call was tied under.
func (c *Call[P, A, S, I]) Name() string { return c.name }

// Untie removes the call from its proxy's registry: no more traffic is
// tied to it by its markers.
func (c *Call[P, A, S, I]) Untie() { c.untie() }

// SetAt gives the call a hook of its own, consulted at its points in
// place of the proxy's (nil: the proxy's again): a fault answers Error or
// Hold for its own call while another's answers otherwise. Set it before
// the call is sent; it may be changed while the call runs.
func (c *Call[P, A, S, I]) SetAt(at func(P) A) {
	c.mu.Lock()
	c.at = at
	c.mu.Unlock()
}

// Trace is the ordered list of points the call's traffic passed, whatever
// the hook answered: from an unfaulted run, the crash points of the call.
func (c *Call[P, A, S, I]) Trace() []S {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.trace)
}

// Injected lists the errors and cuts delivered to the call's traffic so
// far, in order: a fault that answers a point with an error or a cut
// fired when it is here.
func (c *Call[P, A, S, I]) Injected() []I {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.injected)
}

// Inject records a fault delivered to c's traffic. It and Consult are
// functions, not methods, so that they are not promoted to the methods of
// a proxy's call: its users read a call, only its proxy writes one.
func Inject[P, A, S, I any](c *Call[P, A, S, I], i I) {
	c.mu.Lock()
	c.injected = append(c.injected, i)
	c.mu.Unlock()
}

// Consult records step in c's trace and answers pt with c's own hook,
// else fallback (the proxy's), else the zero A.
func Consult[P, A, S, I any](c *Call[P, A, S, I], pt P, step S, fallback func(P) A) A {
	c.mu.Lock()
	c.trace = append(c.trace, step)
	at := c.at
	c.mu.Unlock()
	if at == nil {
		at = fallback
	}
	if at == nil {
		var cont A
		return cont
	}
	return at(pt)
}
