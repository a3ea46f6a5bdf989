package ticketsvc

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// sessionEnded reports whether err says the call's database session was
// ended under it: terminated by the server (SQLSTATE class 57P, an
// administrator's or a failover's doing) or cut (class 08, a connection
// that closed mid-statement).
func sessionEnded(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "57P") || strings.HasPrefix(pgErr.Code, "08")
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// dieOnSessionEnd is the exits-on-db-error mode's mistake: a database
// session ended under a call is not handled, and the process exits, as a
// Node service does on an unhandled 'error' event of its database client
// ("Connection terminated unexpectedly"). The call is left without an
// answer. Options.Exit, when a test sets it, sees the exit instead, and
// the call's connection is then cut as the process's end would cut it.
func (s *Service) dieOnSessionEnd(ctx context.Context, err error) {
	if !s.b.exitsOnSessionEnd || !sessionEnded(err) {
		return
	}
	s.log.ErrorContext(ctx, "Unhandled 'error' event: the database session ended (Connection terminated unexpectedly); exiting", "err", err)
	s.exit(1)
	panic(http.ErrAbortHandler)
}
