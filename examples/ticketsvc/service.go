package ticketsvc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure a Service.
type Options struct {
	// Bug names the bug-zoo mode to switch in (see Bugs), or several
	// joined by commas ("no-payload-check,global-keys"), whose mistakes
	// then all show; empty is correct.
	Bug string
	// Layout is the schema layout of the database (see Layouts); empty is
	// LayoutKeys. It must be the layout the database was migrated with.
	Layout Layout
	// RedisURL is the Redis (redis://host:port/db) the keys-in-redis modes
	// keep their keys in; the other modes ignore it.
	RedisURL string
	// WebhookURL, when set, is where the service announces each ticket
	// it creates (a POST of JSON), through its outbox: run Relay beside
	// the handler.
	WebhookURL string
	// EventsRedisURL, when set instead of WebhookURL, is the Redis
	// (redis://host:port/db) the service publishes each ticket to, as an
	// entry of the stream EventsStream (default DefaultEventsStream),
	// through its outbox: run Relay beside the handler.
	EventsRedisURL string
	EventsStream   string
	// Logger receives request errors; nil discards them.
	Logger *slog.Logger
	// OnArrival, if set, is called with time.Now() (which carries a
	// monotonic reading) as the first thing the handler does for every
	// request, valid or not, before any database work: it records how
	// closely the calls of a burst arrive. It runs on the request's
	// goroutine, so it must be safe for concurrent use, and delays the
	// request by as long as it takes.
	OnArrival func(time.Time)
	// Exit ends the process in the exits-on-db-error mode, with the code
	// given (nil: os.Exit). A test that serves that mode in its own
	// process sets it to see the exit instead.
	Exit func(code int)
}

// Service is the ticket HTTP handler. It is safe for concurrent use and
// keeps no state of its own beyond the pool (and whether it has checked the
// database's schema): several Services (or processes) over one database
// behave as one. The process-mutex mode is the exception that shows why:
// it keeps its locks in the Service.
type Service struct {
	pool      *pgxpool.Pool
	bug       string
	b         behavior
	schema    schema
	log       *slog.Logger
	onArrival func(time.Time)
	// exit ends the process (Options.Exit).
	exit func(code int)
	// mutex serialises the calls of an action in the process-mutex mode;
	// nil in every other.
	mutex *actionMutex
	// memory holds the keys in the memory-keys mode; nil in every other.
	memory *keyMemory
	// errs holds the failed answers in the stores-errors mode.
	errs *errorMemory
	// refusals holds the refused answers in the stores-refusals mode;
	// nil in every other.
	refusals *refusalMemory
	// redis holds the keys in the keys-in-redis modes; nil in every other.
	redis *keyRedis
	// identical holds the requests in flight in the hang-on-burst mode;
	// nil in every other.
	identical *identicalCalls
	// hooks sends the webhooks when Options.WebhookURL is set; nil
	// otherwise.
	hooks *webhooks
	// schemaChecked is set once a call has found the schema of its layout
	// and mode in the database; until then every call checks.
	schemaChecked atomic.Bool
}

// New returns a Service over pool, whose schema Migrate has created with
// opts.Layout and ForBug(opts.Bug). It fails if opts.Bug is not "" or a
// comma-separated list of Bugs(), or opts.Layout not "" or one of Layouts(). New does not touch
// the database: the first create call checks that it holds that schema,
// and until it does every call answers 500 and logs why.
func New(pool *pgxpool.Pool, opts Options) (*Service, error) {
	if pool == nil {
		return nil, errors.New("ticketsvc: New: nil pool")
	}
	b, err := behaviorFor(opts.Bug)
	if err != nil {
		return nil, err
	}
	spec, err := specFor(opts.Layout)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{pool: pool, bug: opts.Bug, b: b, schema: schema{spec: spec, unconstrained: b.unconstrained, pendingKeys: b.pendingKeys(), leases: b.leases()},
		log: log, onArrival: opts.OnArrival, exit: opts.Exit}
	if s.exit == nil {
		s.exit = os.Exit
	}
	if b.processMutex {
		s.mutex = newActionMutex()
	}
	if b.memoryKeys {
		s.memory = &keyMemory{keys: map[action]storedKey{}}
	}
	if b.storesErrors {
		s.errs = &errorMemory{failed: map[action]string{}}
	}
	if b.storesRefusals {
		s.refusals = &refusalMemory{refused: map[action]httpError{}, used: map[action]bool{}}
	}
	if b.redisKeys {
		if s.redis, err = newKeyRedis(opts.RedisURL); err != nil {
			return nil, err
		}
	}
	if b.joinIdentical {
		s.identical = newIdenticalCalls()
	}
	if opts.WebhookURL != "" || opts.EventsRedisURL != "" {
		if spec.layout != LayoutKeys {
			return nil, fmt.Errorf("ticketsvc: New: the webhook announces a ticket with its request_key, which only the %q layout stores, not %q", LayoutKeys, spec.layout)
		}
		switch {
		case opts.WebhookURL != "" && opts.EventsRedisURL != "":
			return nil, errors.New("ticketsvc: New: give a webhook URL or an events Redis URL, not both: the outbox announces each ticket once")
		case opts.WebhookURL != "":
			s.hooks = newWebhooks(opts.WebhookURL)
		default:
			if s.hooks, err = newEventStream(opts.EventsRedisURL, cmp.Or(opts.EventsStream, DefaultEventsStream)); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// Close releases what the Service holds besides its pool (the Redis
// client of the keys-in-redis modes). The pool is the caller's.
func (s *Service) Close() error {
	var errs []error
	if s.redis != nil {
		errs = append(errs, s.redis.close())
	}
	if s.hooks != nil && s.hooks.stream != nil {
		errs = append(errs, s.hooks.stream.Close())
	}
	return errors.Join(errs...)
}

// checkSchema fails unless the database holds the schema of the service's
// layout and mode. Once it has passed it is not repeated: a database
// migrated again under a running service is not noticed.
func (s *Service) checkSchema(ctx context.Context) error {
	if s.schemaChecked.Load() {
		return nil
	}
	want := s.schema
	present, err := presentSchemas(ctx, s.pool)
	switch {
	case err != nil:
		return fmt.Errorf("check the database schema: %w", err)
	case present == nil:
		return fmt.Errorf("the database has no ticketsvc tables: run %s", s.migrateCall())
	case !slices.Contains(layoutsOf(present), want.spec.layout):
		return fmt.Errorf("the service runs the %q layout but the database holds the %s layout: "+
			"start the service with the database's layout, or migrate a fresh database with %q",
			want.spec.layout, layoutList(layoutsOf(present)), want.spec.layout)
	case !slices.Contains(present, want):
		return fmt.Errorf("the service runs %s, which needs the %q layout %s, but the database holds it %s: "+
			"start the service in a mode for this database, or migrate a fresh database: %s",
			modeName(s.bug), want.spec.layout, want.constraints(), want.presentLike(present), s.migrateCall())
	}
	s.schemaChecked.Store(true)
	return nil
}

// migrateCall says how to call Migrate for the service.
func (s *Service) migrateCall() string {
	call := fmt.Sprintf("Migrate with layout %q", s.schema.spec.layout)
	if s.bug != "" {
		call += fmt.Sprintf(" and ForBug(%q)", s.bug)
	}
	return call
}

// ServeHTTP serves POST /tickets; see the package documentation.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.onArrival != nil {
		s.onArrival(time.Now())
	}
	if !routed(w, r) {
		return
	}
	req, herr := parseCreate(w, r, s.b)
	if s.refusals != nil {
		if replayed := s.replayRefusal(w, r, herr); replayed {
			return
		}
	}
	if herr != nil {
		writeJSON(w, herr.status, errorBody{Error: herr.msg})
		return
	}
	if s.errs != nil && s.replayFailure(w, req) {
		return
	}
	out, err := s.create(r.Context(), req)
	if err != nil {
		s.dieOnSessionEnd(r.Context(), err)
		s.log.ErrorContext(r.Context(), "create ticket failed",
			"tenant", req.tenant, "idempotency_key", req.key, "err", err)
		if s.errs != nil {
			s.errs.store(action{req.tenant, req.lookup}, req.fingerprint)
		}
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: internalError})
		return
	}
	if out.msg != "" {
		writeJSON(w, out.status, errorBody{Error: out.msg})
		return
	}
	if s.refusals != nil {
		s.refusals.answered(action{req.tenant, req.key})
	}
	if s.hooks != nil && out.status == http.StatusOK && s.b.webhookOnReplay {
		s.replayEvent(r.Context(), req, out.ticketID)
	}
	writeJSON(w, out.status, ticketBody{TicketID: out.ticketID})
	if s.hooks != nil && out.status == http.StatusCreated && s.b.webhookAfterAnswer {
		s.afterAnswer(req, out.ticketID)
	}
}

// routed answers a request for anything but POST /tickets, the one
// endpoint, with a message that names it, and reports whether the request
// is for it.
func routed(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/tickets" {
		writeJSON(w, http.StatusNotFound, errorBody{Error: "no such endpoint: " + r.URL.Path + " (try POST /tickets)"})
		return false
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: "method " + r.Method + " not allowed on /tickets; use POST"})
		return false
	}
	return true
}

// replayFailure is the stores-errors mode's mistake: a call of an action
// whose work failed gets the stored failure again, the work never
// retried; a changed payload is refused, as for a stored ticket. It
// reports whether it answered.
func (s *Service) replayFailure(w http.ResponseWriter, req createRequest) bool {
	fp, failed := s.errs.find(action{req.tenant, req.lookup})
	if !failed {
		return false
	}
	if fp != req.fingerprint {
		writeJSON(w, payloadMismatch.status, errorBody{Error: payloadMismatch.msg})
		return true
	}
	writeJSON(w, http.StatusInternalServerError, errorBody{Error: internalError})
	return true
}

// replayRefusal is the stores-refusals mode's mistake: a call whose key
// and tenant headers are valid gets the refusal saved under them, if there
// is one, and a refusal of its own (herr) is saved for the calls after it.
func (s *Service) replayRefusal(w http.ResponseWriter, r *http.Request, herr *httpError) bool {
	key, kerr := singleHeader(r, "Idempotency-Key")
	tenant, terr := singleHeader(r, "X-Tenant")
	if kerr != nil || terr != nil {
		return false
	}
	a := action{tenant, key}
	if saved, found := s.refusals.find(a); found {
		writeJSON(w, saved.status, errorBody{Error: saved.msg})
		return true
	}
	if herr != nil {
		s.refusals.store(a, *herr)
	}
	return false
}

// internalError is the answer to a call whose database work failed.
const internalError = "internal error; the ticket may not have been created, retry with the same Idempotency-Key"

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
