package ticketsvc

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure a Service.
type Options struct {
	// Bug names the bug-zoo mode to switch in (see Bugs); empty is correct.
	Bug string
	// Logger receives request errors; nil discards them.
	Logger *slog.Logger
}

// Service is the ticket HTTP handler. It is safe for concurrent use and
// keeps no state of its own beyond the pool: several Services (or
// processes) over one database behave as one.
type Service struct {
	pool *pgxpool.Pool
	b    behavior
	log  *slog.Logger
}

// New returns a Service over pool, whose schema Migrate has created. It fails
// if opts.Bug is not "" or one of Bugs().
func New(pool *pgxpool.Pool, opts Options) (*Service, error) {
	if pool == nil {
		return nil, errors.New("ticketsvc: New: nil pool")
	}
	b, err := behaviorFor(opts.Bug)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{pool: pool, b: b, log: log}, nil
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
	req, herr := parseCreate(w, r)
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
