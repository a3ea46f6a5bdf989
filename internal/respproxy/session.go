package respproxy

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

// dialTimeout bounds the dial of the server for a new client connection.
const dialTimeout = 5 * time.Second

// session is one client connection and its server connection. Three
// goroutines serve it (wireproxy.Serve): one reads the client's commands,
// one decides and forwards them (command), one relays the server's
// replies (relay). Ending the session closes both connections, which ends
// all three.
type session struct {
	*wireproxy.Session
	p      *Proxy
	server net.Conn // set once by dial, before the relay starts

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

// serve is the proxy's handler of a connection accepted.
func (p *Proxy) serve(ws *wireproxy.Session) {
	s := &session{Session: ws, p: p}
	r := bufio.NewReaderSize(s.Client(), 64<<10)
	read := func() (command, error) { return readCommand(r) }
	wireproxy.Serve(s.Session, s.dial, read, s.command, s.relay)
}

// dial connects to the server; a client of a server that is down sees
// its connection closed.
func (s *session) dial() (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	server, err := d.DialContext(s.Context(), "tcp", s.p.opts.Server)
	s.server = server
	return server, err
}

// command ties one command, consults the hook before it and sends it,
// or answers it in the server's place.
func (s *session) command(cmd command) error {
	name := cmd.name()
	c := s.tie(cmd, name)
	e := entry{call: c, name: name}
	if c != nil {
		e.n, e.idx = c.begin(name)
		act := s.p.consult(c, Point{Kind: BeforeCommand, Command: name, N: e.n, Index: e.idx})
		switch act.kind {
		case actHold:
			if err := s.Hold(act.release); err != nil {
				return err
			}
		case actCut:
			c.inject(Injection{Kind: BeforeCommand, Command: name, N: e.n})
			s.End()
			return wireproxy.ErrEnded
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
	return s.WriteClient(b)
}

// relay forwards the server's replies to the client, each matched to the
// command it answers, until the session ends.
func (s *session) relay() {
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
		act := s.p.consult(e.call, Point{Kind: AfterCommand, Command: e.name, N: e.n, Index: e.idx, Error: rep.err})
		switch act.kind {
		case actHold:
			if err := s.Hold(act.release); err != nil {
				return err
			}
		case actCut, actError:
			e.call.inject(Injection{Kind: AfterCommand, Command: e.name, N: e.n})
			s.End()
			return wireproxy.ErrEnded
		}
	}
	if err := s.WriteClient(rep.raw); err != nil {
		return err
	}
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = s.pending[1:]
	for len(s.pending) > 0 && s.pending[0].canned != nil {
		if err := s.WriteClient(s.pending[0].canned); err != nil {
			return err
		}
		s.pending = s.pending[1:]
	}
	return nil
}
