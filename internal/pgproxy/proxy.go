package pgproxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
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
	opts Options
	ln   net.Listener
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	ids  atomic.Uint64
	open atomic.Int64 // sessions accepted, not yet ended
	held atomic.Int64 // sessions waiting in a Hold
	live atomic.Int64 // sessions past startup, not yet ended
	peak atomic.Int64 // the most live at once

	mu    sync.Mutex
	calls []*Call
}

// Start listens on a free 127.0.0.1 port and relays every connection to
// opts.Server until Close.
func Start(opts Options) (*Proxy, error) {
	if opts.Server == "" {
		return nil, errors.New("pgproxy: Options.Server is empty: give the host:port of the PostgreSQL server")
	}
	addr := cmp.Or(opts.Listen, "127.0.0.1:0")
	if err := loopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pgproxy: listen on %s: %w (is the port taken?)", addr, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &Proxy{opts: opts, ln: ln, ctx: ctx, stop: stop}
	p.wg.Go(p.accept)
	return p, nil
}

// Open is the number of sessions accepted and not yet ended (those still
// starting up included: a connection a pool is opening will serve a
// client waiting for one): with Held, what a statement barrier needs to
// see that a call waiting for a pool connection cannot get one.
func (p *Proxy) Open() int { return int(p.open.Load()) }

// Held is the number of sessions waiting in a Hold right now, whoever's
// hook held them. When it reaches Open and Peak, no session is left to
// serve a client waiting for a pool connection and the pool cannot open
// another: a statement barrier counts such a client as held.
func (p *Proxy) Held() int { return int(p.held.Load()) }

// Peak is the most sessions that were open at once (past their startup;
// a cancel request is none) since the proxy started. A client's pool
// that has fewer open than that, every one held, could open another for
// a client waiting for one: such a client waits for something else (a
// lock inside the service).
func (p *Proxy) Peak() int { return int(p.peak.Load()) }

// started counts a session past its startup, and the peak.
func (p *Proxy) started() {
	n := p.live.Add(1)
	for {
		old := p.peak.Load()
		if n <= old || p.peak.CompareAndSwap(old, n) {
			return
		}
	}
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops accepting, ends every open session (closing both of its
// connections: the server rolls back what they had open) and returns once
// every goroutine of the proxy has ended.
func (p *Proxy) Close() error {
	p.stop()
	err := p.ln.Close()
	p.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

func (p *Proxy) accept() {
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return // closed; a transient accept error on loopback is not worth a retry loop
		}
		s := newSession(p, conn)
		p.wg.Go(s.run)
	}
}

func (p *Proxy) emit(e Event) {
	if p.opts.OnEvent != nil {
		p.opts.OnEvent(e)
	}
}

// at is the action at pt of call c: c's own hook (Call.SetAt) when it has
// one, else Options.At.
func (p *Proxy) at(c *Call, pt Point) Action {
	at := c.hook()
	if at == nil {
		at = p.opts.At
	}
	if at == nil {
		return Continue
	}
	return at(pt)
}

// loopback refuses a listen address outside 127.0.0.1 and ::1: the proxy
// relays a database's sessions, passwords included, and is no server for
// other machines.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("pgproxy: listen address %q: %w (want 127.0.0.1:PORT)", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("pgproxy: listen address %q is not a loopback address: want 127.0.0.1:PORT", addr)
	}
	return nil
}
