package paysvc

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// defaultInUseAfter is how long a call waits for another call of its key
// to finish before answering 409 IDEMPOTENCY_KEY_IN_USE.
const defaultInUseAfter = 2 * time.Second

// Options configure a Service.
type Options struct {
	// Bug names the bug-zoo mode to switch in (see Bugs), or several
	// joined by commas ("replay-changed,merchant-leak"); empty is correct.
	Bug string
	// KeyHeader, if set, is the header the idempotency key travels in
	// (e.g. "X-Request-Id"); the body then must not have idempotency_key.
	// Empty: the key is the body's idempotency_key.
	KeyHeader string
	// InUseAfter is how long a call waits for a concurrent call of its key
	// before answering 409; 0 is defaultInUseAfter.
	InUseAfter time.Duration
	// Logger receives request errors; nil discards them.
	Logger *slog.Logger
}

// Service is the payments HTTP handler. It is safe for concurrent use and
// keeps no state of its own beyond the pool: several Services (or
// processes) over one database behave as one.
type Service struct {
	pool       *pgxpool.Pool
	b          behavior
	keyHeader  string
	inUseAfter time.Duration
	log        *slog.Logger
	mux        *http.ServeMux
}

// New returns a Service over pool, whose tables Migrate has created. It
// fails if opts.Bug is not "" or a comma-separated list of Bugs(). New does
// not touch the database.
func New(pool *pgxpool.Pool, opts Options) (*Service, error) {
	if pool == nil {
		return nil, errors.New("paysvc: New: nil pool")
	}
	b, err := behaviorFor(opts.Bug)
	if err != nil {
		return nil, err
	}
	if opts.InUseAfter < 0 {
		return nil, errors.New("paysvc: New: negative InUseAfter")
	}
	if opts.InUseAfter == 0 {
		opts.InUseAfter = defaultInUseAfter
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{pool: pool, b: b, keyHeader: http.CanonicalHeaderKey(opts.KeyHeader), inUseAfter: opts.InUseAfter, log: log}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST "+route, s.createPayment)
	s.mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, &apiError{http.StatusMethodNotAllowed, errorEntry{Category: "INVALID_REQUEST_ERROR", Code: "METHOD_NOT_ALLOWED",
			Detail: "method " + r.Method + " is not allowed here; use POST"}})
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{http.StatusNotFound, errorEntry{Category: "INVALID_REQUEST_ERROR", Code: "NOT_FOUND",
			Detail: "no such endpoint: " + r.URL.Path + " (try POST /v2/merchants/{merchant}/payments)"}})
	})
	return s, nil
}

// route is the one endpoint; the merchant is a path segment.
const route = "/v2/merchants/{merchant}/payments"

// ServeHTTP serves POST /v2/merchants/{merchant}/payments; see the package
// documentation.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Service) createPayment(w http.ResponseWriter, r *http.Request) {
	req, herr := parseCreate(w, r, r.PathValue("merchant"), s.keyHeader)
	if herr != nil {
		writeError(w, herr)
		return
	}
	out, herr, err := s.create(r.Context(), req)
	switch {
	case err != nil:
		s.log.ErrorContext(r.Context(), "create payment failed", "merchant", req.merchant, "idempotency_key", req.key, "err", err)
		writeError(w, &apiError{http.StatusInternalServerError, errorEntry{Category: "API_ERROR", Code: "INTERNAL_SERVER_ERROR",
			Detail: "internal error; the payment may or may not have been made: retry with the same idempotency key"}})
	case herr != nil:
		writeError(w, herr)
	default:
		writeJSON(w, http.StatusOK, paymentBody{Payment: out})
	}
}

// paymentBody is the answer to a create call and to its replays.
type paymentBody struct {
	Payment payment `json:"payment"`
}

// payment is a payments row as the API shows it.
type payment struct {
	ID          string    `json:"id"`
	MerchantID  string    `json:"merchant_id"`
	AmountMoney moneyOut  `json:"amount_money"`
	SourceID    string    `json:"source_id"`
	Note        string    `json:"note,omitempty"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"created_at"`
	// rowID is ID as stored; fingerprint is the stored request's, to
	// compare a retry with.
	rowID       int64
	fingerprint string
}

type moneyOut struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// errorBody is every error answer, as Square writes them.
type errorBody struct {
	Errors []errorEntry `json:"errors"`
}

type errorEntry struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Detail   string `json:"detail"`
	Field    string `json:"field,omitempty"`
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, errorBody{Errors: []errorEntry{e.entry}})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// The status is already sent; a failed write means the client is gone.
	_ = json.NewEncoder(w).Encode(body)
}
