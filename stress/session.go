package stress

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/fault/nemesis"
	"github.com/idemstress/idemstress/internal/interp"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/internal/observe/access"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// Session is a Config made ready to run plans: the database connected (a
// throwaway one started when the service is ours to start and none was
// given), the service's replicas started, the target built, the effect
// tables checked against the database. Close releases all of it.
type Session struct {
	cfg  Config
	exec interp.Executor
	// nemesis is exec's: what the contract's faults need.
	nemesis  *nemesis.Faults
	observer *observe.Observer
	// where says what the calls go to, for reports.
	where string
	// svc is the service's replicas when idemstress started them.
	svc *process.Service
	// db is the PostgreSQL proxy in front of the database, and dbURL the
	// database's URL through it (dbproxy.go); nil and "" without one.
	db    *pgproxy.Proxy
	dbURL string
	// deps are the RESP proxies in front of the dependencies that speak
	// it, by name (depproxy.go).
	deps map[string]*respproxy.Proxy
	// sinks are the receivers of the contract's sinks.
	sinks   []receiver
	closers []func()
}

// Open checks cfg and starts what it describes. On failure nothing it
// started is left running. An error wrapping contract.ErrContract (or
// observe.ErrSchema, pgtemp.ErrNoBinaries) is the caller's to fix; any
// other means something could not be reached or started.
func Open(ctx context.Context, cfg Config) (_ *Session, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	pool := cfg.DB
	if pool != nil && cfg.Process != nil && cfg.DatabaseURL == "" {
		return nil, fmt.Errorf("%w: Config.DB and a process section need Config.DatabaseURL too: the service must be told where its database is", contract.ErrContract)
	}
	if pool == nil {
		url, err := s.database(ctx)
		if err != nil {
			return nil, err
		}
		if pool, err = Connect(ctx, url); err != nil {
			return nil, err
		}
		s.closers = append(s.closers, pool.Close)
		s.cfg.DatabaseURL = url
	}
	if cfg.Process != nil || cfg.DBProxy != "" {
		if _, err := s.dbProxy(s.cfg.DatabaseURL, cfg.DBProxy); err != nil {
			return nil, err
		}
	}
	// The sinks before the service, which is handed their URLs.
	if err := s.startSinks(); err != nil {
		return nil, err
	}
	// The service first: one that idemstress starts creates its schema.
	tgt, err := s.target(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.startRedisSinks(ctx); err != nil {
		return nil, err
	}
	s.observer = observe.NewObserver(pool, cfg.Effects)
	s.observer.Contract = s.cfg.Contract // how the namespace stands in keys, tenants and tags
	if err := s.observer.Validate(ctx); err != nil {
		return nil, err
	}
	s.nemesis = &nemesis.Faults{Service: nemesis.Processes(s.svc)}
	s.exec = interp.Executor{Spec: s.cfg.Spec, Target: tgt, Nemesis: s.nemesis, DB: s.db, Deps: s.deps}
	if err := s.faults(pool); err != nil {
		return nil, err
	}
	if err := s.checkStalls(ctx, pool); err != nil {
		return nil, err
	}
	return s, nil
}

// checkStalls readies the stalls the run holds (the key table's, the
// db-stall nemesis's) and checks that each can hold what it must: one
// that cannot is the contract's mistake, not the service's.
func (s *Session) checkStalls(ctx context.Context, pool *pgxpool.Pool) error {
	if k := s.nemesis.KeyStall; k != nil {
		if err := k.Check(ctx); errors.Is(err, dbstall.ErrCannotStall) {
			return fmt.Errorf("%w: key_table: %w", contract.ErrContract, err)
		} else if err != nil {
			return stopped(ctx, fmt.Errorf("%w: %w", errInfrastructure, err))
		}
	}
	if s.cfg.DBStall != "" && s.db != nil {
		// The statement barrier in the proxy: no lock, no grant, and a
		// request waiting for a pool connection is seen.
		s.nemesis.Barrier = &dbstall.Barrier{DB: s.db, Wait: s.cfg.StallWait}
	} else if s.cfg.DBStall != "" {
		stall := &dbstall.Stall{Pool: pool, Table: s.cfg.DBStall, Wait: s.cfg.StallWait}
		if err := stall.Check(ctx); errors.Is(err, dbstall.ErrCannotStall) {
			return fmt.Errorf("%w: db_stall: %w", contract.ErrContract, err)
		} else if err != nil {
			return stopped(ctx, fmt.Errorf("%w: %w", errInfrastructure, err))
		}
		s.nemesis.Stall = stall
	}
	return nil
}

// faults readies what the contract's faults need: a fault proxy in front
// of each replica, and the stall a crash waits on.
func (s *Session) faults(pool *pgxpool.Pool) error {
	if slices.ContainsFunc(s.cfg.Faults, needsProxy) {
		h, ok := s.exec.Target.(*client.HTTP)
		if !ok {
			return fmt.Errorf("%w: faults: the fault proxy needs an HTTP target", contract.ErrContract)
		}
		var addrs []string
		for _, host := range h.Hosts() {
			p, err := httpproxy.Start(host)
			if err != nil {
				return err
			}
			// Held past the call's timeout: the client gives up first.
			p.Hold = h.Spec().Timeout + 5*time.Second
			s.closers = append(s.closers, func() { _ = p.Close() })
			s.nemesis.Proxies = append(s.nemesis.Proxies, p)
			addrs = append(addrs, p.Addr())
		}
		s.exec.Target = h.WithHosts(addrs)
	}
	if slices.ContainsFunc(s.cfg.Faults, waitsOnLastTable) {
		s.nemesis.EffectStall = &dbstall.Stall{Pool: pool, Table: s.cfg.CrashTable(), Wait: s.cfg.StallWait}
	}
	if slices.ContainsFunc(s.cfg.Faults, func(f model.Fault) bool { k, _ := faultkind.KindOf(f); return k.KeyTable }) {
		s.nemesis.KeyStall = &dbstall.Stall{Pool: pool, Table: s.cfg.KeyTable, Wait: s.cfg.StallWait}
	}
	return nil
}

// database is the URL of the effect tables: the one given, or a throwaway
// cluster's when idemstress starts the service and none was given.
func (s *Session) database(ctx context.Context) (string, error) {
	if s.cfg.DatabaseURL != "" {
		return s.cfg.DatabaseURL, nil
	}
	if s.cfg.Process == nil {
		return "", fmt.Errorf("%w: no database to read the effect tables from: set database_url in the contract, DATABASE_URL, or --database-url", contract.ErrContract)
	}
	fmt.Fprintln(s.cfg.Log, "idemstress: starting a throwaway PostgreSQL cluster for the service")
	cluster, err := pgtemp.Start(ctx, pgtemp.Options{})
	if err != nil {
		return "", err
	}
	s.closers = append(s.closers, func() { _ = cluster.Close() })
	return cluster.CreateDatabase(ctx, "idemstress")
}

// target builds the target calls go to: the caller's, or one from the
// contract's template, spread over the replicas idemstress started.
func (s *Session) target(ctx context.Context) (client.Target, error) {
	tgt := s.cfg.Target
	s.where = s.cfg.HTTP.URL
	if idle, ok := tgt.(interface{ CloseIdleConnections() }); ok {
		s.closers = append(s.closers, idle.CloseIdleConnections)
	}
	if tgt == nil {
		h, err := client.NewHTTP(s.cfg.HTTP, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", contract.ErrContract, err)
		}
		s.closers = append(s.closers, h.CloseIdleConnections)
		if s.cfg.Process != nil {
			// The replicas reach their database through the proxy.
			svc, err := process.Start(ctx, s.processSpec(), cmp.Or(s.dbURL, s.cfg.DatabaseURL))
			if err != nil {
				// The argv and the service's output may hold the database URL.
				err = redact.Error(err)
				if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
					return nil, fmt.Errorf("%w: process.command: %w", contract.ErrContract, err)
				}
				return nil, fmt.Errorf("starting the service: %w", err)
			}
			s.closers = append(s.closers, func() { _ = svc.Stop() })
			s.svc = svc
			h = h.WithHosts(svc.Addrs())
			s.where = strings.Join(svc.Addrs(), ",")
			fmt.Fprintf(s.cfg.Log, "idemstress: started %d replica(s) at %s\n", len(svc.Addrs()), strings.Join(svc.Addrs(), ", "))
		}
		tgt = h
	} else if s.cfg.Process != nil {
		return nil, fmt.Errorf("%w: Config.Target and a process section together: calls would not go to the service idemstress starts", contract.ErrContract)
	}
	if h, ok := tgt.(*client.HTTP); ok {
		tgt = h.WithSync(s.cfg.Sync)
		if s.cfg.Target != nil {
			s.where = h.Spec().URL
		}
	} else if s.cfg.Target != nil {
		s.where = fmt.Sprintf("%T", s.cfg.Target)
	}
	return tgt, nil
}

// Close stops what Open started, the last started first.
func (s *Session) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// Indexes says, one line per effect table, which index its observation
// uses or which one it would need (doctor prints them).
func (s *Session) Indexes(ctx context.Context) []access.IndexAdvice { return s.observer.Indexes(ctx) }

// DB is the pool that reads the effect tables.
func (s *Session) DB() *pgxpool.Pool { return s.observer.DB() }

// Where says what the calls go to: the target's URL, or the addresses of
// the replicas idemstress started.
func (s *Session) Where() string { return s.where }

// Try executes one plan in namespace ns, reads the namespace's rows and
// judges both. The error says the run cannot go on (target or database
// gone, ctx ended); a violation is not an error.
func (s *Session) Try(ctx context.Context, ns model.Namespace, plan model.Plan, t0 time.Time) (Trial, error) {
	tr := Trial{NS: ns}
	s.observer.Begin(ctx, ns) // where ns's rows will begin, so that Observe reads only those
	var err error
	tr.History, err = s.exec.Execute(ctx, ns, plan, t0)
	if err != nil {
		return tr, stopped(ctx, err)
	}
	snap, err := s.observer.Observe(ctx, ns)
	if err != nil {
		return tr, stopped(ctx, fmt.Errorf("%w: %v", errInfrastructure, err))
	}
	if tr.History.Deliveries, err = s.deliveries(ctx, ns, tr.History, snap, t0); err != nil {
		return tr, err
	}
	tr.Violations = checks.Evaluate(checks.Input{Contract: s.cfg.Contract, Effects: s.cfg.Effects, Sinks: s.cfg.Sinks, NS: ns, History: tr.History, Rows: snap})
	if err := s.lateLook(ctx, &tr, snap, t0); err != nil {
		return tr, err
	}
	// A {{tag}} where the key travels is what the service tells actions
	// apart by: it holds the tenant, so no two tenants share a key.
	tr.Coverage = coverage.Exercised(coverage.Exercise{Contract: s.cfg.Contract, KeyInTag: keyInTag(s.cfg), History: tr.History, Sinks: s.cfg.Sinks, NS: ns})
	return tr, nil
}

// errInfrastructure marks a failure of the run itself (target or database
// not there), as opposed to a violation found in the client.
var errInfrastructure = interp.ErrInfrastructure

// ErrBadURL marks a database URL that does not parse (exit code 2).
var ErrBadURL = errors.New("bad database URL")

// ErrDatabaseUnreachable marks a database that did not answer (exit code 3).
var ErrDatabaseUnreachable = errors.New("database unreachable")

// Connect opens a pool and proves the database answers. A URL that does not
// parse is an ErrBadURL.
func Connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDatabaseUnreachable, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("%w at %s:%d: %w (is it running? is the URL right?)", ErrDatabaseUnreachable, cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	return pool, nil
}

// stopped tells an interruption from an infrastructure failure.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
	}
	return err
}

// ErrInterrupted says the run's context ended before it finished.
var ErrInterrupted = errors.New("interrupted")
