package pgproxy

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

const dialTimeout = 10 * time.Second

// errCancelled ends a session that only carried a CancelRequest.
var errCancelled = errors.New("pgproxy: cancel request passed on")

// startup answers the client's SSLRequest and GSSENCRequest with 'N' (so
// it goes on in plain text), then dials the server and sends it the
// client's StartupMessage. A CancelRequest is passed on to the server on a
// connection of its own, as PostgreSQL expects, and ends the session.
// Everything after the StartupMessage (authentication included) is relayed
// frame by frame. The client sends nothing after its StartupMessage until
// the server asks, so the pgproto3.Backend used here holds no bytes that
// the relay would miss.
func (s *session) startup() (server net.Conn, err error) {
	be := pgproto3.NewBackend(s.Client(), s.Client())
	for {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return nil, fmt.Errorf("pgproxy: session %d: startup: %w", s.id, err)
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := s.Client().Write([]byte{'N'}); err != nil {
				return nil, err
			}
		case *pgproto3.CancelRequest:
			if err := s.sendCancel(m); err != nil {
				return nil, err
			}
			return nil, errCancelled
		case *pgproto3.StartupMessage:
			server, err := s.dial()
			if err != nil {
				return nil, err
			}
			fe := pgproto3.NewFrontend(server, server)
			fe.Send(m)
			if err := fe.Flush(); err != nil {
				server.Close()
				return nil, fmt.Errorf("pgproxy: session %d: send startup to %s: %w", s.id, s.p.opts.Server, err)
			}
			return server, nil
		default:
			return nil, fmt.Errorf("pgproxy: session %d: unexpected startup message %T", s.id, msg)
		}
	}
}

func (s *session) dial() (net.Conn, error) {
	d := net.Dialer{Timeout: dialTimeout}
	server, err := d.DialContext(s.Context(), "tcp", s.p.opts.Server)
	if err != nil {
		return nil, fmt.Errorf("pgproxy: session %d: dial PostgreSQL at %s: %w", s.id, s.p.opts.Server, err)
	}
	return server, nil
}

func (s *session) sendCancel(m *pgproto3.CancelRequest) error {
	server, err := s.dial()
	if err != nil {
		return err
	}
	defer server.Close()
	fe := pgproto3.NewFrontend(server, server)
	fe.Send(m)
	return fe.Flush()
}
