package ticketsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure a Service.
type Options struct {
	// Bug names the bug-zoo mode to switch in (see Bugs); empty is correct.
	Bug string
	// Layout is the schema layout of the database (see Layouts); empty is
	// LayoutKeys. It must be the layout the database was migrated with.
	Layout Layout
	// Logger receives request errors; nil discards them.
	Logger *slog.Logger
}

// Service is the ticket HTTP handler. It is safe for concurrent use and
// keeps no state of its own beyond the pool (and whether it has checked the
// database's layout): several Services (or processes) over one database
// behave as one.
type Service struct {
	pool   *pgxpool.Pool
	b      behavior
	layout *layoutSpec
	log    *slog.Logger
	// layoutChecked is set once a call has found opts.Layout's tables in
	// the database; until then every call checks.
	layoutChecked atomic.Bool
}

// New returns a Service over pool, whose schema Migrate has created with
// opts.Layout. It fails if opts.Bug is not "" or one of Bugs(), or
// opts.Layout not "" or one of Layouts(). New does not touch the database:
// the first create call checks that it holds opts.Layout, and until it does
// every call answers 500 and logs why.
func New(pool *pgxpool.Pool, opts Options) (*Service, error) {
	if pool == nil {
		return nil, errors.New("ticketsvc: New: nil pool")
	}
	b, err := behaviorFor(opts.Bug)
	if err != nil {
		return nil, err
	}
	layout, err := specFor(opts.Layout)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{pool: pool, b: b, layout: layout, log: log}, nil
}

// checkLayout fails unless the database holds the service's layout. Once
// it has passed it is not repeated: a database migrated again under a
// running service is not noticed.
func (s *Service) checkLayout(ctx context.Context) error {
	if s.layoutChecked.Load() {
		return nil
	}
	present, err := presentLayouts(ctx, s.pool)
	switch {
	case err != nil:
		return fmt.Errorf("check the database layout: %w", err)
	case present == nil:
		return fmt.Errorf("the database has no ticketsvc tables: run Migrate with layout %q", s.layout.layout)
	case !slices.Contains(present, s.layout.layout):
		return fmt.Errorf("the service runs the %q layout but the database holds the %s layout: "+
			"start the service with the database's layout, or migrate a fresh database with %q",
			s.layout.layout, layoutList(present), s.layout.layout)
	}
	s.layoutChecked.Store(true)
	return nil
}

// ServeHTTP serves POST /tickets; see the package documentation.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/tickets" {
		writeJSON(w, http.StatusNotFound, errorBody{Error: "no such endpoint: " + r.URL.Path + " (try POST /tickets)"})
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: "method " + r.Method + " not allowed on /tickets; use POST"})
		return
	}
	req, herr := parseCreate(w, r, s.b.rawBodyFingerprint)
	if herr != nil {
		writeJSON(w, herr.status, errorBody{Error: herr.msg})
		return
	}
	out, err := s.create(r.Context(), req)
	if err != nil {
		s.log.ErrorContext(r.Context(), "create ticket failed",
			"tenant", req.tenant, "idempotency_key", req.key, "err", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "internal error; the ticket may not have been created, retry with the same Idempotency-Key"})
		return
	}
	if out.msg != "" {
		writeJSON(w, out.status, errorBody{Error: out.msg})
		return
	}
	writeJSON(w, out.status, ticketBody{TicketID: out.ticketID})
}

type ticketBody struct {
	TicketID int64 `json:"ticket_id"`
}

type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// The status is already sent; a failed write means the client is gone.
	_ = json.NewEncoder(w).Encode(body)
}
