// Package sample starts the sample service (examples/ticketsvc) in-process
// on a loopback port, in one of its modes, over a database of its own, and
// says what idemstress should find there. The demo and the integration
// tests share it.
//
// It is a harness at the top of the stack, beside cmd/idemstress: it
// imports stress (it hands out each mode's stress.Config), so no package below
// stress may use it.
package sample

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/stress"
)

// Correct is the name of the sample service's correct mode.
const Correct = "correct"

// Expected is the check that must catch each bug mode, as its primary
// finding: ticketsvc's by mode, paysvc's by row (PayModes).
var Expected = map[string]checks.ID{
	"outbox-on-retry":  checks.DuplicateEffect,
	"no-payload-check": checks.ChangedAccepted,
	"global-keys":      checks.TenantLeak,
	// A re-encoded retry answered 422: the equivalent payload was rejected.
	"raw-body-fingerprint": checks.EqualRejected,
	// Two concurrent duplicates both insert (caught by a burst).
	"check-then-insert": checks.DuplicateEffect,
	// The loser of a concurrent duplicate gets 500 (caught by a burst).
	"unique-violation-500": checks.WrongStatus,
	// An in-process mutex: duplicates once two replicas serve a burst.
	"process-mutex": checks.DuplicateEffect,
	// The fingerprint covers the subject only: a changed channel is replayed.
	"partial-fingerprint": checks.ChangedAccepted,
	// A retry with a tracing query parameter is another action to it.
	"query-in-key": checks.DuplicateEffect,
	// Keys are trimmed under an exact contract: "k1" and "k1\u00a0" are one.
	"trimmed-keys": checks.KeysFolded,
	// Keys in process memory: after a restart the same call creates again.
	"memory-keys": checks.DuplicateEffect,
	// A crash between the ticket's and the outbox's transactions: the
	// retry is replayed with no notification.
	"non-atomic": checks.MissingEffect,
	// A key left in progress by a crash: its retries answer in_flight
	// past the recovery time.
	"stuck-in-flight": checks.StuckAction,
	// A 500 from a passing database error stored under the key: its retry
	// gets the same 500 where the contract says errors are not stored.
	"stores-errors": checks.ErrorReplay,
	// The key record completed in a transaction after the effects': a
	// crash between the two leaves the key in progress for good.
	"complete-after-commit": checks.StuckAction,
	// The key committed in progress before the work's transaction: a
	// crash between the two leaves it in progress for good.
	"key-tx-first": checks.StuckAction,
	// The effects committed before the key record's transaction: a crash
	// between the two, and the retry creates a second ticket.
	"effects-tx-first": checks.DuplicateEffect,
	// A claim with a lease that a slow original outlasts: its retry takes
	// over and creates a second ticket.
	"short-lease": checks.DuplicateEffect,
	// Keys in a Redis without persistence: after Redis restarts, the same
	// call creates again.
	"keys-in-redis": checks.DuplicateEffect,
	// Keys in a durable Redis, written before the PostgreSQL commit: a
	// crash between the two, and the retry replays a ticket that never
	// committed.
	"keys-in-redis-durable": checks.MissingEffect,
	// Keys in a durable Redis whose failure to store a record is skipped:
	// the ticket commits without it, and the retry creates again.
	"keys-in-redis-fail-open": checks.DuplicateEffect,
	// Identical calls at once: all but the first wait for an answer the
	// first never hands over (caught by a burst).
	"hang-on-burst": checks.NoAnswer,
	// A 400 for a broken payload stored under the key: the fixed call
	// gets it again where the contract says refusals are not stored.
	"stores-refusals": checks.RefusalReplay,
	// The process exits when a db-error ends its database session: a
	// finding of its own, and the run goes on with the replica started
	// again.
	"exits-on-db-error": checks.ReplicaExited,

	// The webhook's modes (WebhookConfig): a replay announces the ticket
	// again, under a new event ID;
	"webhook-on-replay": checks.DuplicateDelivery,
	// a delivery the sink refused is sent again under a new event ID;
	"new-event-id-on-retry": checks.EventIDChanged,
	// the webhook leaves before the commit that a crash then rolls back;
	"webhook-before-commit": checks.PhantomDelivery,
	// the webhook waits in memory after the answer, and a crash loses it.
	"webhook-lost-on-crash": checks.LostDelivery,

	// paysvc: a reused key with another request replays the original.
	payPrefix + "replay-changed": checks.ChangedAccepted,
	// paysvc: keys looked up across merchants.
	payPrefix + "merchant-leak": checks.TenantLeak,
	// paysvc: look up, then insert, nothing between: a burst makes two.
	payPrefix + "racy-insert": checks.DuplicateEffect,
	// paysvc: every replay writes another ledger entry.
	payPrefix + "ledger-on-retry": checks.DuplicateEffect,
}

// hangTimeout bounds a call to a mode that hangs (hang-on-burst): the
// sample answers in milliseconds, even after a stalled burst's StallWait,
// so a few seconds without an answer is a hang, and each hang costs the
// shrinking one timeout instead of the contract's ten seconds.
const hangTimeout = 3 * time.Second

// callTimeout is the call timeout of a run of the sample in mode: the
// contract's, or hangTimeout for a mode that hangs (alone or in a list).
func callTimeout(mode string, contract time.Duration) time.Duration {
	if hasMode(mode, "hang-on-burst") {
		return hangTimeout
	}
	return contract
}

// hasMode reports whether a mode, or a comma-separated list, names m.
func hasMode(mode, m string) bool {
	// Spaces around a name count for nothing, as in ticketsvc's -bug.
	return slices.ContainsFunc(strings.Split(mode, ","), func(n string) bool { return strings.TrimSpace(n) == m })
}

// Replicas is how many replicas of a mode the sample serves: two for the
// bug that only shows across processes (alone or in a comma-separated list
// of modes), one otherwise.
func Replicas(mode string) int {
	if hasMode(mode, "process-mutex") {
		return 2
	}
	return 1
}

// Layouts are the sample service's schema layouts: key columns in every
// effect table, or the key kept only in the service's own table and rows
// attributed by the action tag.
func Layouts() []ticketsvc.Layout { return ticketsvc.Layouts() }

// Modes lists the correct mode, the other correct designs (key-first),
// every bug mode, then the modes that keep their keys in a Redis
// (NeedsRedis).
func Modes() []string {
	return slices.Concat([]string{Correct}, ticketsvc.CorrectModes(), ticketsvc.Bugs(), ticketsvc.RedisModes())
}

// Passes reports whether a mode, or every mode of a comma-separated list,
// is correct: idemstress must pass it.
func Passes(mode string) bool {
	for _, m := range strings.Split(mode, ",") {
		if _, bug := Expected[strings.TrimSpace(m)]; bug {
			return false
		}
	}
	return true
}

// Service is a running sample service: one replica, or several serving
// one database, each a Service of its own (as separate processes would be).
type Service struct {
	Mode   string
	Layout ticketsvc.Layout
	URL    string   // the first replica: http://127.0.0.1:PORT/tickets
	Addrs  []string // every replica's 127.0.0.1:PORT
	// Pool is the service's own pool.
	Pool *pgxpool.Pool
	// Contract is the layout's contract file, pointed at this service.
	Contract stress.Config
	dbURL    string
	servers  []*http.Server
	served   chan error
}

// Start migrates the database at dbURL to the layout (and the mode's
// constraints) and serves the sample service in the given mode on free
// loopback ports, Replicas(mode) of them.
func Start(ctx context.Context, dbURL, mode string, layout ticketsvc.Layout) (*Service, error) {
	return StartWrapped(ctx, dbURL, mode, layout, nil)
}

// StartWrapped is Start with every replica's handler passed through wrap
// (nil: none), for benchmarks that count or record the requests served.
func StartWrapped(ctx context.Context, dbURL, mode string, layout ticketsvc.Layout, wrap func(http.Handler) http.Handler) (_ *Service, err error) {
	return start(ctx, dbURL, mode, layout, wrap, false)
}

// StartDBProxied is Start with the service's database reached through
// the PostgreSQL proxy a run puts in front of it (stress.Config.DBProxy):
// the replicas' pool connects to a loopback address reserved for it, set
// in the Contract's DBProxy, and the database faults that need the proxy
// reach the in-process service. The pool connects once a run has started
// the proxy there.
func StartDBProxied(ctx context.Context, dbURL, mode string, layout ticketsvc.Layout) (*Service, error) {
	return start(ctx, dbURL, mode, layout, nil, true)
}

// start is Start, StartWrapped and StartDBProxied: it migrates the
// database for the mode, opens the replicas' pool and serves every replica
// on a loopback port of its own.
func start(ctx context.Context, dbURL, mode string, layout ticketsvc.Layout, wrap func(http.Handler) http.Handler, proxied bool) (_ *Service, err error) {
	bug := mode
	if mode == Correct {
		bug = ""
	}
	if NeedsRedis(mode) {
		return nil, fmt.Errorf("sample: mode %s keeps its keys in a Redis that idemstress starts beside the service: run it as processes (ProcessConfig)", mode)
	}
	contract, err := Contract(layout)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, dbURL, layout, bug); err != nil {
		return nil, err
	}
	pool, proxyAddr, err := replicaPool(ctx, dbURL, proxied)
	if err != nil {
		return nil, err
	}
	s := &Service{Mode: mode, Layout: layout, Pool: pool, Contract: contract, dbURL: dbURL, served: make(chan error, Replicas(mode))}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	for range Replicas(mode) {
		if err := s.serveReplica(bug, wrap); err != nil {
			return nil, err
		}
	}
	s.URL = "http://" + s.Addrs[0] + "/tickets"
	s.Contract.HTTP.URL = s.URL
	s.Contract.HTTP.Timeout = callTimeout(mode, s.Contract.HTTP.Timeout)
	s.Contract.DatabaseURL = dbURL
	s.Contract.DBProxy = proxyAddr
	return s, nil
}

// replicaPool opens the pool the replicas share, through the run's
// database proxy when proxied (then proxyAddr is the address reserved for
// it). The pool has room for every call of the largest burst at once: a
// call waiting for a pool connection is invisible to the db-stall
// nemesis, which then cannot tell it from one that is lost.
func replicaPool(ctx context.Context, dbURL string, proxied bool) (_ *pgxpool.Pool, proxyAddr string, err error) {
	serveURL := dbURL
	if proxied {
		if serveURL, proxyAddr, err = throughProxy(dbURL); err != nil {
			return nil, "", err
		}
	}
	poolCfg, err := pgxpool.ParseConfig(serveURL)
	if err != nil {
		return nil, "", fmt.Errorf("sample: database URL: %w", err)
	}
	poolCfg.MaxConns = 40
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return nil, "", fmt.Errorf("sample: database: %w", err)
	}
	return pool, proxyAddr, nil
}

// serveReplica starts one replica of the service in mode bug on s's pool,
// its handler passed through wrap (nil: none), serving on a free loopback
// port until s is closed.
func (s *Service) serveReplica(bug string, wrap func(http.Handler) http.Handler) error {
	svc, err := ticketsvc.New(s.Pool, ticketsvc.Options{Bug: bug, Layout: s.Layout})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("sample: listening on loopback: %w", err)
	}
	var h http.Handler = svc
	if wrap != nil {
		h = wrap(h)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.servers = append(s.servers, srv)
	s.Addrs = append(s.Addrs, ln.Addr().String())
	go func() { s.served <- srv.Serve(ln) }()
	return nil
}

// migrate brings the database at dbURL to the layout and the mode's
// constraints, on a pool of its own (the service's may reach it through a
// proxy not started yet).
func migrate(ctx context.Context, dbURL string, layout ticketsvc.Layout, bug string) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("sample: database URL: %w", err)
	}
	defer pool.Close()
	return ticketsvc.Migrate(ctx, pool, layout, ticketsvc.ForBug(bug))
}

// throughProxy reserves a free loopback port for the run's database proxy
// and returns dbURL pointed at it, and the address.
func throughProxy(dbURL string) (string, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", fmt.Errorf("sample: reserving a port for the database proxy: %w", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", "", fmt.Errorf("sample: database URL: %w", err)
	}
	u.Host = addr
	return u.String(), addr, nil
}

// Contract is the sample service's contract for a layout.
func Contract(layout ticketsvc.Layout) (stress.Config, error) {
	if layout == ticketsvc.LayoutTagged {
		return stress.Parse("examples/ticketsvc/contract_tagged.yaml", ticketsvc.ContractTagged)
	}
	return stress.Parse("examples/ticketsvc/contract.yaml", ticketsvc.Contract)
}

// Config is a run of this service against its contract: plans random
// plans, seed 0 for a random one. Its Target is set, spread over the
// replicas, so that a test may wrap it.
func (s *Service) Config(plans int, seed uint64) (stress.Config, error) {
	cfg := s.Contract
	tgt, err := client.NewHTTP(cfg.HTTP, nil)
	if err != nil {
		return stress.Config{}, err
	}
	if len(s.Addrs) > 1 {
		tgt = tgt.WithHosts(s.Addrs)
	}
	cfg.Target, cfg.Plans, cfg.Seed = tgt, plans, seed
	return cfg, nil
}

// Close stops every replica, waits for them, and closes the pool.
func (s *Service) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range s.servers {
		_ = srv.Shutdown(ctx)
		<-s.served
	}
	s.Pool.Close()
}

// BuildBinary builds the sample service's binary into dir and returns its
// path, for tests and demos that have idemstress start it as a process.
// It needs the go command, as `go test` does.
func BuildBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "ticketsvc")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/idemstress/idemstress/examples/ticketsvc/cmd/ticketsvc").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("sample: building ticketsvc: %w\n%s", err, out)
	}
	return bin, nil
}
