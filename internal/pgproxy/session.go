package pgproxy

import (
	"bufio"
	"net"
	"sync"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

// session is one client connection and its server connection. Three
// goroutines serve it (wireproxy.Serve): one reads the client, one
// decides and forwards what the client sent (forward), one relays what
// the server answers (relay). Ending the session closes both connections,
// which ends all three.
type session struct {
	*wireproxy.Session
	id     uint64
	p      *Proxy
	server net.Conn // set once by startup, before the relay starts

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

// serve is the proxy's handler of a connection accepted.
func (p *Proxy) serve(ws *wireproxy.Session) {
	s := &session{
		Session: ws, id: p.ids.Add(1), p: p,
		stmts: map[string]string{}, portals: map[string]portal{},
	}
	connect := func() (net.Conn, error) {
		server, err := s.startup()
		s.server = server
		return server, err
	}
	r := bufio.NewReader(s.Client())
	read := func() (frame, error) { return readFrame(r) }
	wireproxy.Serve(s.Session, connect, read, s.handle, s.relay)
}

func (s *session) writeServer(f frame) error {
	_, err := s.server.Write(f)
	return err
}

// die answers the client with a terminated backend's FATAL error, when
// code is one, and ends the session.
func (s *session) die(code string) error {
	if code != "" && fatal(code) {
		if f, err := fatalFrame(code); err == nil {
			_ = s.WriteClient(f)
		}
	}
	s.End()
	return wireproxy.ErrEnded
}

func (s *session) emit(e Event) {
	e.Session = s.id
	s.p.emit(e)
}
