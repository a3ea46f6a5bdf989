package pgproxy

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync"
)

// errEnded: the session was ended (cut, client gone, proxy closed) while a
// goroutine of it waited.
var errEnded = errors.New("pgproxy: session ended")

// session is one client connection and its server connection. Three
// goroutines serve it: one reads the client, one (run) decides and
// forwards what the client sent, one relays what the server answers.
// Ending the session's context closes both connections, which ends all
// three.
type session struct {
	id     uint64
	p      *Proxy
	client net.Conn
	ctx    context.Context
	end    context.CancelFunc

	clientMu sync.Mutex // serialises writes to the client
	server   net.Conn   // set once by startup, before the relay starts

	mu      sync.Mutex
	call    *Call             // the call the open transaction is tied to
	stmts   map[string]string // prepared statement name -> text
	portals map[string]portal
	pending []entry // what the server still owes an answer for, in order
}

type portal struct {
	sql    string
	params [][]byte
}

func newSession(p *Proxy, client net.Conn) *session {
	ctx, end := context.WithCancel(p.ctx)
	return &session{
		id: p.ids.Add(1), p: p, client: client, ctx: ctx, end: end,
		stmts: map[string]string{}, portals: map[string]portal{},
	}
}

func (s *session) run() {
	// Counted from the accept: a connection a pool is still opening
	// will serve a client waiting for one.
	s.p.open.Add(1)
	defer s.p.open.Add(-1)
	defer s.end()
	defer s.onEnd(func() { s.client.Close() })()
	defer s.client.Close()
	server, err := s.startup()
	if err != nil {
		return
	}
	s.server = server
	s.p.started()
	defer s.p.live.Add(-1)
	defer s.onEnd(func() { server.Close() })()
	defer server.Close()

	frames := make(chan frame, 64)
	var wg sync.WaitGroup
	wg.Go(func() { s.readClient(frames) })
	wg.Go(s.relay)
	s.forward(frames)
	s.end()
	wg.Wait()
}

// onEnd runs f once the session ends (to unblock a read on a
// connection) and returns what waits for it: run waits, so that no
// goroutine of the session's outlives it, nor Proxy.Close.
func (s *session) onEnd(f func()) (wait func()) {
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

// readClient reads the client's frames for forward, so that a client that
// dies while its session is held is seen at once (its read ends).
func (s *session) readClient(frames chan<- frame) {
	defer s.end()
	r := bufio.NewReader(s.client)
	for {
		f, err := readFrame(r)
		if err != nil {
			return
		}
		select {
		case frames <- f:
		case <-s.ctx.Done():
			return
		}
	}
}

func (s *session) writeClient(f frame) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	_, err := s.client.Write(f)
	return err
}

func (s *session) writeServer(f frame) error {
	_, err := s.server.Write(f)
	return err
}

func (s *session) wait(release <-chan struct{}) error {
	s.p.held.Add(1)
	defer s.p.held.Add(-1)
	select {
	case <-release:
		return nil
	case <-s.ctx.Done():
		return errEnded
	}
}

// consult asks the hook at a point of a tied session and records the
// point in the call's trace.
func (s *session) consult(c *Call, pt Point) Action {
	pt.Call = c.name
	c.record(pt)
	return s.p.at(c, pt)
}

// die answers the client with a terminated backend's FATAL error, when
// code is one, and ends the session.
func (s *session) die(code string) error {
	if code != "" && fatal(code) {
		if f, err := fatalFrame(code); err == nil {
			_ = s.writeClient(f)
		}
	}
	s.end()
	return errEnded
}

func (s *session) emit(e Event) {
	e.Session = s.id
	s.p.emit(e)
}
