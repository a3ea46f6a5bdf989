package stress

import (
	"fmt"
	"net"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/redact"
)

// The PostgreSQL proxy between the service and its database (package
// pgproxy): with a process section every replica is handed its URL as
// {database_url}; a service started elsewhere is pointed at the address
// Config.DBProxy names. One proxy a run, not one a replica: a call's
// retry may go to another replica, and the calls are told apart by their
// markers whichever replica's session carries them.

// dbProxy starts the proxy in front of the database at dbURL, listening
// on listen ("" for a free loopback port), and returns it with the URL
// that reaches the database through it. It is closed with the session.
func (s *Session) dbProxy(dbURL, listen string) (string, error) {
	cfg, err := pgconn.ParseConfig(dbURL)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadURL, redact.Error(err))
	}
	if cfg.Host == "" || cfg.Host[0] == '/' {
		return "", fmt.Errorf("%w: the database proxy reaches PostgreSQL over TCP, and the database URL names the socket %s: give host:port", contract.ErrContract, cfg.Host)
	}
	p, err := pgproxy.Start(pgproxy.Options{Server: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Listen: listen})
	if err != nil {
		return "", fmt.Errorf("%w: db_proxy: %w", contract.ErrContract, err)
	}
	s.closers = append(s.closers, func() { _ = p.Close() })
	url, err := p.URL(dbURL)
	if err != nil {
		return "", fmt.Errorf("%w: db_proxy: %w", contract.ErrContract, redact.Error(err))
	}
	s.db, s.dbURL = p, url
	fmt.Fprintf(s.cfg.Log, "idemstress: database proxy at %s (point the service at %s)\n", p.Addr(), redact.String(url))
	return url, nil
}

// DBProxyURL is the URL that reaches the database through the run's
// PostgreSQL proxy, "" when the run has none.
func (s *Session) DBProxyURL() string { return s.dbURL }
