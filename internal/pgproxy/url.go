package pgproxy

import (
	"fmt"
	"net/url"
)

// URL returns base, a postgres:// or postgresql:// URL, with its host and
// port replaced by the proxy's and everything else (user, password,
// database, parameters) kept. The proxy answers 'N' to SSLRequest and
// GSSENCRequest, so a client with sslmode=prefer or allow (pgx's default
// is prefer) goes on in plain text on its own; sslmode=require or stricter
// cannot work through the proxy and URL says so. An absent sslmode is
// left absent: the client then falls back to plain text as with prefer.
func (p *Proxy) URL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("pgproxy: database URL: %w", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return "", fmt.Errorf("pgproxy: database URL scheme %q: want postgres:// or postgresql://", u.Scheme)
	}
	q := u.Query()
	switch mode := q.Get("sslmode"); mode {
	case "", "disable", "allow", "prefer":
	default:
		return "", fmt.Errorf("pgproxy: database URL has sslmode=%s, which the proxy (plain text only) cannot honour: use sslmode=disable or prefer", mode)
	}
	if q.Has("host") || q.Has("port") {
		return "", fmt.Errorf("pgproxy: database URL names its host or port in parameters; put them in the authority (postgres://user@host:port/db)")
	}
	u.Host = p.Addr()
	return u.String(), nil
}
