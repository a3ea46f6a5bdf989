package respproxy

import (
	"errors"

	"github.com/idemstress/idemstress/internal/wireproxy"
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
	opts  Options
	l     *wireproxy.Listener
	calls wireproxy.Registry[*Call]
}

// Start listens on a free 127.0.0.1 port (or opts.Listen) and relays
// every connection to opts.Server until Close. The server need not be up:
// each client connection dials it when it is accepted, and one that
// cannot reach it is closed, as a client of a server that is down sees.
func Start(opts Options) (*Proxy, error) {
	if opts.Server == "" {
		return nil, errors.New("respproxy: Options.Server is empty: give the host:port of the Redis server")
	}
	p := &Proxy{opts: opts}
	l, err := wireproxy.Listen("respproxy", opts.Listen, p.serve)
	if err != nil {
		return nil, err
	}
	p.l = l
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.l.Addr() }

// Server is the host:port of the server the proxy relays to.
func (p *Proxy) Server() string { return p.opts.Server }

// Held is the number of sessions waiting in a Hold right now.
func (p *Proxy) Held() int { return p.l.Held() }

// Close stops accepting, ends every open session (closing both of its
// connections) and returns once every goroutine of the proxy has ended.
func (p *Proxy) Close() error { return p.l.Close() }
