package wireproxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
)

// Listener is a proxy's listener on a loopback address: it serves each
// client connection in a goroutine of its own until Close.
type Listener struct {
	ln   net.Listener
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
	open atomic.Int64 // sessions accepted, not yet ended
	held atomic.Int64 // sessions waiting in a Hold
	live atomic.Int64 // sessions connected to the server, not yet ended
	peak atomic.Int64 // the most live at once
}

// Listen listens on addr ("": a free port of 127.0.0.1), a loopback
// address only, and calls serve with a Session for each connection
// accepted, from a goroutine of its own, until Close. who names the proxy
// in errors ("pgproxy").
func Listen(who, addr string, serve func(*Session)) (*Listener, error) {
	addr = cmp.Or(addr, "127.0.0.1:0")
	if err := loopback(who, addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w (is the port taken?)", who, addr, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	l := &Listener{ln: ln, ctx: ctx, stop: stop}
	l.wg.Go(func() { l.accept(serve) })
	return l, nil
}

// Addr is the listener's host:port.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Open is the number of sessions accepted and not yet ended.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Held is the number of sessions waiting in a Hold right now.
func (l *Listener) Held() int { return int(l.held.Load()) }

// Peak is the most sessions that were connected to the server at once
// since the listener started.
func (l *Listener) Peak() int { return int(l.peak.Load()) }

// started counts a session connected to the server, and the peak.
func (l *Listener) started() {
	n := l.live.Add(1)
	for {
		old := l.peak.Load()
		if n <= old || l.peak.CompareAndSwap(old, n) {
			return
		}
	}
}

// Close stops accepting, ends every open session (its serve sees its
// context done) and returns once every goroutine of the listener's has
// ended.
func (l *Listener) Close() error {
	l.stop()
	err := l.ln.Close()
	l.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

func (l *Listener) accept(serve func(*Session)) {
	for {
		conn, err := l.ln.Accept()
		if err != nil {
			return // closed; a transient accept error on loopback is not worth a retry loop
		}
		s := newSession(l, conn)
		l.wg.Go(func() {
			// Counted from the accept: a connection a pool is still
			// opening will serve a client waiting for one.
			l.open.Add(1)
			defer l.open.Add(-1)
			defer s.End()
			serve(s)
		})
	}
}

// loopback refuses a listen address outside 127.0.0.1 and ::1: a proxy
// relays a store's sessions, passwords included, and is no server for
// other machines.
func loopback(who, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s: listen address %q: %w (want 127.0.0.1:PORT)", who, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s: listen address %q is not a loopback address: want 127.0.0.1:PORT", who, addr)
	}
	return nil
}
