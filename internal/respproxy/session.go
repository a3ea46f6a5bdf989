package respproxy

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"time"
)

// dialTimeout bounds the dial of the server for a new client connection.
const dialTimeout = 5 * time.Second

// errEnded: the session was ended (cut, client gone, proxy closed) while a
// goroutine of it waited.
var errEnded = errors.New("respproxy: session ended")

// session is one client connection and its server connection. Three
// goroutines serve it: one reads the client's commands, one (run) decides
// and forwards them, one relays the server's replies. Ending the
// session's context closes both connections, which ends all three.
type session struct {
	p      *Proxy
	client net.Conn
	server net.Conn
	ctx    context.Context
	end    context.CancelFunc

	clientMu sync.Mutex // serialises writes to the client

	mu      sync.Mutex
	pending []entry // what the client awaits a reply to, in order
	// multi: a MULTI block is open; multiCall is the call one of its
	// queued commands carried a marker of, whose point its EXEC is.
	multi     bool
	multiCall *Call
	// unfollowed: the session subscribed (or turned its replies off), so
	// replies no longer answer commands one to one: relayed as they are,
	// with no points.
	unfollowed bool
}

// entry is a command awaiting its reply: a tied one's point, or a reply
// the proxy answers in the server's place (canned), sent once the replies
// before it are.
type entry struct {
	call   *Call
	name   string
	n, idx int
	canned []byte
}

func newSession(p *Proxy, client net.Conn) *session {
	ctx, end := context.WithCancel(p.ctx)
	return &session{p: p, client: client, ctx: ctx, end: end}
}

func (s *session) run() {
	defer s.end()
	defer s.onEnd(func() { s.client.Close() })()
	defer s.client.Close()
	d := net.Dialer{Timeout: dialTimeout}
	server, err := d.DialContext(s.ctx, "tcp", s.p.opts.Server)
	if err != nil {
		return // the server is down: the client sees its connection closed
	}
	s.server = server
	defer s.onEnd(func() { server.Close() })()
	defer server.Close()

	cmds := make(chan command, 64)
	var wg sync.WaitGroup
	wg.Go(func() { s.readClient(cmds) })
	wg.Go(s.relay)
	s.forward(cmds)
	s.end()
	wg.Wait()
}

// onEnd runs f once the session ends (to unblock a read) and returns what
// waits for it, so that no goroutine of the session's outlives run.
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

// readClient reads the client's commands for forward, so that a client
// that dies while its session is held is seen at once.
func (s *session) readClient(cmds chan<- command) {
	defer s.end()
	r := bufio.NewReaderSize(s.client, 64<<10)
	for {
		c, err := readCommand(r)
		if err != nil {
			return
		}
		select {
		case cmds <- c:
		case <-s.ctx.Done():
			return
		}
	}
}

// forward decides and sends each command of the client's, in order.
func (s *session) forward(cmds <-chan command) {
	for {
		var cmd command
		select {
		case cmd = <-cmds:
		case <-s.ctx.Done():
			return
		}
		if err := s.command(cmd); err != nil {
			return
		}
	}
}

// command ties one command, consults the hook before it and sends it,
// or answers it in the server's place.
func (s *session) command(cmd command) error {
	name := cmd.name()
	c := s.tie(cmd, name)
	e := entry{call: c, name: name}
	if c != nil {
		e.n, e.idx = c.begin(name)
		act := s.consult(c, Point{Kind: BeforeCommand, Command: name, N: e.n, Index: e.idx})
		switch act.kind {
		case actHold:
			if err := s.wait(act.release); err != nil {
				return err
			}
		case actCut:
			c.inject(Injection{Kind: BeforeCommand, Command: name, N: e.n})
			s.end()
			return errEnded
		case actError:
			c.inject(Injection{Kind: BeforeCommand, Command: name, N: e.n, Line: act.line})
			return s.canned([]byte("-" + act.line + "\r\n"))
		}
	}
	s.mu.Lock()
	if !s.unfollowed {
		s.pending = append(s.pending, e)
	}
	s.mu.Unlock()
	_, err := s.server.Write(cmd.raw)
	return err
}

// tie is the call cmd belongs to, nil for none, and follows MULTI blocks
// and the commands after which replies no longer answer commands.
func (s *session) tie(cmd command, name string) *Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.unfollowed:
		return nil
	case s.multi && name == "EXEC":
		c := s.multiCall
		s.multi, s.multiCall = false, nil
		return c
	case s.multi && name == "DISCARD":
		s.multi, s.multiCall = false, nil
		return nil
	case s.multi:
		// Queued, not run: the block's EXEC is its point.
		if s.multiCall == nil {
			s.multiCall = s.p.match(cmd)
		}
		return nil
	case name == "MULTI":
		s.multi = true
		return nil
	case unfollows(cmd, name):
		s.unfollowed = true
		return nil
	}
	return s.p.match(cmd)
}

// unfollows: after this command the server's replies no longer answer
// the client's commands one to one.
func unfollows(cmd command, name string) bool {
	switch name {
	case "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR":
		return true
	case "CLIENT":
		return strings.EqualFold(string(cmd.arg(1)), "REPLY")
	}
	return false
}

// canned sends a reply of the proxy's in the server's place: at once
// when no reply of the server's is awaited, else after those.
func (s *session) canned(b []byte) error {
	s.mu.Lock()
	if len(s.pending) > 0 {
		s.pending = append(s.pending, entry{canned: b})
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return s.writeClient(b)
}

// relay forwards the server's replies to the client, each matched to the
// command it answers, until the session ends.
func (s *session) relay() {
	defer s.end()
	r := bufio.NewReaderSize(s.server, 64<<10)
	for {
		rep, err := readReply(r)
		if err != nil {
			return
		}
		if err := s.reply(rep); err != nil {
			return
		}
	}
}

// reply passes one of the server's replies to the client, after the
// point of the command it answers, then the proxy's own replies that
// waited behind it.
func (s *session) reply(rep reply) error {
	s.mu.Lock()
	var e entry
	ok := !rep.push && !s.unfollowed && len(s.pending) > 0
	if ok {
		e = s.pending[0]
	}
	s.mu.Unlock()
	if ok && e.call != nil {
		act := s.consult(e.call, Point{Kind: AfterCommand, Command: e.name, N: e.n, Index: e.idx, Error: rep.err})
		switch act.kind {
		case actHold:
			if err := s.wait(act.release); err != nil {
				return err
			}
		case actCut, actError:
			e.call.inject(Injection{Kind: AfterCommand, Command: e.name, N: e.n})
			s.end()
			return errEnded
		}
	}
	if err := s.writeClient(rep.raw); err != nil {
		return err
	}
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = s.pending[1:]
	for len(s.pending) > 0 && s.pending[0].canned != nil {
		if err := s.writeClient(s.pending[0].canned); err != nil {
			return err
		}
		s.pending = s.pending[1:]
	}
	return nil
}

func (s *session) writeClient(b []byte) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	_, err := s.client.Write(b)
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

// consult asks the hook at a point of a tied command and records the
// point in the call's trace.
func (s *session) consult(c *Call, pt Point) Action {
	pt.Call = c.name
	c.record(pt)
	return s.p.at(c, pt)
}
