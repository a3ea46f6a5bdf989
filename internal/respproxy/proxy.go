package respproxy

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
	// Server is the host:port of the real server (Redis, Valkey, or
	// anything else that speaks RESP).
	Server string
	// Listen is the loopback host:port to listen on ("": a free port of
	// 127.0.0.1).
	Listen string
	// At is consulted at every point of a tied command, from the
	// session's goroutines (so concurrently for concurrent sessions); nil
	// means Continue everywhere.
	At func(Point) Action
}

// Proxy is a running RESP proxy on 127.0.0.1. Close it.
type Proxy struct {
	opts Options
	ln   net.Listener
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	held atomic.Int64 // sessions waiting in a Hold

	mu    sync.Mutex
	calls []*Call
}

// Start listens on a free 127.0.0.1 port (or opts.Listen) and relays
// every connection to opts.Server until Close. The server need not be up:
// each client connection dials it when it is accepted, and one that
// cannot reach it is closed, as a client of a server that is down sees.
func Start(opts Options) (*Proxy, error) {
	if opts.Server == "" {
		return nil, errors.New("respproxy: Options.Server is empty: give the host:port of the Redis server")
	}
	addr := cmp.Or(opts.Listen, "127.0.0.1:0")
	if err := loopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("respproxy: listen on %s: %w (is the port taken?)", addr, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &Proxy{opts: opts, ln: ln, ctx: ctx, stop: stop}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Server is the host:port of the server the proxy relays to.
func (p *Proxy) Server() string { return p.opts.Server }

// Held is the number of sessions waiting in a Hold right now.
func (p *Proxy) Held() int { return int(p.held.Load()) }

// Close stops accepting, ends every open session (closing both of its
// connections) and returns once every goroutine of the proxy has ended.
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
			return // closed
		}
		s := newSession(p, conn)
		p.wg.Go(s.run)
	}
}

// at is the action at pt of call c: c's own hook when it has one, else
// Options.At.
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

// loopback refuses a listen address outside the loopback interface: the
// proxy relays a key store's sessions, passwords included.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("respproxy: listen address %q: %w (want 127.0.0.1:PORT)", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("respproxy: listen address %q is not a loopback address: want 127.0.0.1:PORT", addr)
	}
	return nil
}
