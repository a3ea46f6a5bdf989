package wireproxy

import (
	"context"
	"errors"
	"net"
	"sync"
)

// ErrEnded says the session was ended (cut, client gone, proxy closed)
// while a goroutine of it waited.
var ErrEnded = errors.New("wireproxy: session ended")

// Session is one client connection of a proxy's. Ending its context (End,
// a failed read of either side, the listener's Close) closes both of its
// connections, which ends every goroutine serving it.
type Session struct {
	l      *Listener
	client net.Conn
	ctx    context.Context
	end    context.CancelFunc

	clientMu sync.Mutex // serialises writes to the client
}

func newSession(l *Listener, client net.Conn) *Session {
	ctx, end := context.WithCancel(l.ctx)
	return &Session{l: l, client: client, ctx: ctx, end: end}
}

// Context is done once the session has ended.
func (s *Session) Context() context.Context { return s.ctx }

// Client is the client's connection, for a protocol's startup before
// Serve relays it.
func (s *Session) Client() net.Conn { return s.client }

// End ends the session: both connections close.
func (s *Session) End() { s.end() }

// WriteClient writes b to the client whole, serialised with the other
// writes to it.
func (s *Session) WriteClient(b []byte) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	_, err := s.client.Write(b)
	return err
}

// Hold blocks until release is closed (nil) or the session ends
// (ErrEnded), counted meanwhile in the listener's Held.
func (s *Session) Hold(release <-chan struct{}) error {
	s.l.held.Add(1)
	defer s.l.held.Add(-1)
	select {
	case <-release:
		return nil
	case <-s.ctx.Done():
		return ErrEnded
	}
}

// Serve serves the session to its end. connect opens the server's
// connection (on an error the client's is closed, as a client of a
// server that is down sees). Then three goroutines serve it: one reads
// the client's messages with read, so that a client that dies while its
// session is held is seen at once (its read ends); the caller's hands
// them to handle in order; one runs relay, the server's side. A failed
// read, an error from handle or the end of relay ends the session; Serve
// returns once both connections are closed and the goroutines have ended.
func Serve[M any](s *Session, connect func() (net.Conn, error), read func() (M, error), handle func(M) error, relay func()) {
	defer s.end()
	defer s.onEnd(func() { s.client.Close() })()
	defer s.client.Close()
	server, err := connect()
	if err != nil {
		return
	}
	s.l.started()
	defer s.l.live.Add(-1)
	defer s.onEnd(func() { server.Close() })()
	defer server.Close()

	msgs := make(chan M, 64)
	var wg sync.WaitGroup
	wg.Go(func() { readClient(s, read, msgs) })
	wg.Go(func() {
		defer s.end()
		relay()
	})
	for done := false; !done; {
		select {
		case m := <-msgs:
			done = handle(m) != nil
		case <-s.ctx.Done():
			done = true
		}
	}
	s.end()
	wg.Wait()
}

// onEnd runs f once the session ends (to unblock a read on a
// connection) and returns what waits for it: Serve waits, so that no
// goroutine of the session's outlives it, nor the listener's Close.
func (s *Session) onEnd(f func()) (wait func()) {
	var done sync.WaitGroup
	done.Add(1)
	stop := context.AfterFunc(s.ctx, func() { defer done.Done(); f() })
	return func() {
		if stop() {
			done.Done()
		}
		done.Wait()
	}
}

// readClient reads the client's messages for the handler until a read
// fails or the session ends.
func readClient[M any](s *Session, read func() (M, error), msgs chan<- M) {
	defer s.end()
	for {
		m, err := read()
		if err != nil {
			return
		}
		select {
		case msgs <- m:
		case <-s.ctx.Done():
			return
		}
	}
}
