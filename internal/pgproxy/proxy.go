package pgproxy

import (
	"errors"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

// Options configures Start.
type Options struct {
	// Server is the host:port of the real PostgreSQL server.
	Server string
	// Listen is the loopback host:port to listen on ("": a free port of
	// 127.0.0.1), for a service started before the proxy that must be
	// told its address in advance.
	Listen string
	// At is consulted at every point of a tied session, from the session's
	// own goroutines (so concurrently for concurrent sessions); nil means
	// Continue everywhere.
	At func(Point) Action
	// OnEvent receives every session's events as they happen, from the
	// session's goroutines; nil discards them. It must not block for long:
	// the session waits for it.
	OnEvent func(Event)
}

// Proxy is a running PostgreSQL wire-protocol proxy on 127.0.0.1. Close it.
type Proxy struct {
	opts  Options
	l     *wireproxy.Listener
	ids   atomic.Uint64
	calls wireproxy.Registry[*Call]
}

// Start listens on a free 127.0.0.1 port and relays every connection to
// opts.Server until Close.
func Start(opts Options) (*Proxy, error) {
	if opts.Server == "" {
		return nil, errors.New("pgproxy: Options.Server is empty: give the host:port of the PostgreSQL server")
	}
	p := &Proxy{opts: opts}
	l, err := wireproxy.Listen("pgproxy", opts.Listen, p.serve)
	if err != nil {
		return nil, err
	}
	p.l = l
	return p, nil
}

// Open is the number of sessions accepted and not yet ended (those still
// starting up included: a connection a pool is opening will serve a
// client waiting for one): with Held, what a statement barrier needs to
// see that a call waiting for a pool connection cannot get one.
func (p *Proxy) Open() int { return p.l.Open() }

// Held is the number of sessions waiting in a Hold right now, whoever's
// hook held them. When it reaches Open and Peak, no session is left to
// serve a client waiting for a pool connection and the pool cannot open
// another: a statement barrier counts such a client as held.
func (p *Proxy) Held() int { return p.l.Held() }

// Peak is the most sessions that were open at once (past their startup;
// a cancel request is none) since the proxy started. A client's pool
// that has fewer open than that, every one held, could open another for
// a client waiting for one: such a client waits for something else (a
// lock inside the service).
func (p *Proxy) Peak() int { return p.l.Peak() }

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.l.Addr() }

// Close stops accepting, ends every open session (closing both of its
// connections: the server rolls back what they had open) and returns once
// every goroutine of the proxy has ended.
func (p *Proxy) Close() error { return p.l.Close() }

func (p *Proxy) emit(e Event) {
	if p.opts.OnEvent != nil {
		p.opts.OnEvent(e)
	}
}
