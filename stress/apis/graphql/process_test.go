package graphql_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/testbed/apitest"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// The GraphQL-like service also runs as a process, so that runs can
// restart it and kill it between its two transactions: the test binary
// itself, started with APIS_SERVE=graphql (and APIS_BUG), serves it on
// PORT over DATABASE_URL instead of running tests (see TestMain).

// serveEnv names the shape a test binary started as a service serves.
const serveEnv = "APIS_SERVE"

// serveProcess serves the shape named in the environment until SIGTERM,
// and returns the exit code.
func serveProcess() int {
	if os.Getenv(serveEnv) != "graphql" {
		fmt.Fprintf(os.Stderr, "%s=%q: only graphql runs as a process\n", serveEnv, os.Getenv(serveEnv))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := serveGraphQL(ctx, os.Getenv("DATABASE_URL"), "127.0.0.1:"+os.Getenv("PORT"), os.Getenv("APIS_BUG")); err != nil {
		fmt.Fprintln(os.Stderr, "graphql:", err)
		return 1
	}
	return 0
}

// serveGraphQL serves the GraphQL-like service in mode bug on addr until
// ctx ends.
func serveGraphQL(ctx context.Context, dbURL, addr, bug string) error {
	svc, err := startGraphQLProcess(ctx, dbURL, bug)
	if err != nil {
		return err
	}
	defer svc.pool.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// startGraphQLProcess is the service as a process starts: over a pool of
// its own, its schema made unless it is there (a restart finds it), and
// what a crash cut off undone.
func startGraphQLProcess(ctx context.Context, dbURL, bug string) (*graphqlSvc, error) {
	pc, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, err
	}
	pc.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, err
	}
	svc := &graphqlSvc{pool: pool, bug: bug}
	var exists bool
	err = pool.QueryRow(ctx, `SELECT to_regclass('payments') IS NOT NULL`).Scan(&exists)
	if err == nil && !exists {
		_, err = pool.Exec(ctx, graphqlDDL(bug))
	}
	if err == nil {
		err = svc.recover(ctx)
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("start-up: %w", err)
	}
	return svc, nil
}

// The process runs deal 17 faults to their first plans (apitest's 7, each
// failure db-error names at the proxy with its retry, and crash,
// crash-key-record and crash-after-commit alone and with their retry, and
// a restart): the correct service passes processPlans, every kind fired
// and every failure tried; the bug, found within the first 12, meets
// every dealt fault in processBugPlans.
// Each of the bug's shrink candidates restarts the service, so its
// budget (apitest.BugShrinkTime, or 16 times the failing plan) fits few
// of them on a loaded machine: 30s once ended a minute's shrink at the
// minimal plan, unconfirmed (not minimal). The budget is a ceiling: a
// shrink that confirms its plan ends there.
const (
	processPlans      = 40
	processBugPlans   = 20
	processShrinkTime = 90 * time.Second
)

// The GraphQL-like service as a process passes processPlans plans under
// the faults only a process has (restarts, and kills between its two
// transactions, before and after their commit) besides the others, every
// one fired; with a recovery that keeps the claims a kill left unfinished,
// the key of a call killed between its transactions stays in progress for
// ever: one row, minimal.
func TestGraphQLLikeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service as processes")
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	asProcess := func(t *testing.T, bug string) stress.Config {
		cfg := apitest.Contract(t, apitest.ReadContract(t), "http://127.0.0.1:8080", pgtest.NewDatabase(t, cluster), processPlans) // the replica's host:port wins
		cfg.Process = &process.Spec{Command: []string{exe}, Env: []string{serveEnv + "=graphql", "APIS_BUG=" + bug}}
		cfg.Faults = append(cfg.Faults, model.FaultRestart, model.FaultCrash, model.FaultCrashKeyRecord, model.FaultCrashAfterCommit)
		cfg.KeyTable = "idempotency_keys"
		// The service undoes a killed call's claim as it starts, before it
		// serves: a retry after the restart is never in progress, so a key
		// still in progress a second after is stuck, and a plan that shows
		// it polls that long instead of the default five seconds.
		cfg.Contract.Recovery = time.Second
		// A call waits for a replica that may have just restarted, on a
		// machine where the other runs of the binary go at once: the
		// contract's 2s took a correct service's burst for a hang once
		// under load. Only delay waits it out, a plan or two of each run.
		cfg.HTTP.Timeout = 5 * time.Second
		return cfg
	}
	t.Run("correct", func(t *testing.T) {
		t.Parallel()
		cfg := asProcess(t, "")
		apitest.AssertPasses(t, cfg, apitest.Run(t, cfg))
	})
	t.Run("keeps-claims", func(t *testing.T) {
		t.Parallel()
		bc := apitest.BugCase{Bug: "keeps-claims", Want: checks.StuckAction, Minimal: apitest.StepsOf(stresstest.Faulted("A", "k1", model.FaultCrash),
			model.Step{Kind: model.StepRestart}, stresstest.Call("A", "k1", 0))}
		cfg := asProcess(t, "keeps-claims")
		cfg.Plans, cfg.ShrinkTime = processBugPlans, processShrinkTime
		apitest.AssertCaught(t, bc, apitest.Run(t, cfg))
	})
}

// At start-up the service undoes what a kill between its transactions
// left (a claim never completed, its payment), and leaves completed
// payments alone; without its recovery it leaves both.
func TestGraphQLLikeRecovery(t *testing.T) {
	for _, bug := range []string{"", "keeps-claims"} {
		pool, dbURL := apitest.Database(t, cluster, graphqlDDL(bug))
		if _, err := pool.Exec(t.Context(), `INSERT INTO idempotency_keys (merchant, key, fingerprint, payment_gid, done) VALUES
				('m1', 'k1', '{}', 'gid://example/Payment/1', true), ('m1', 'k2', '{}', NULL, false);
			INSERT INTO payments (merchant, idem_key, amount, currency, note) VALUES ('m1', 'k1', 1, 'USD', 'done'), ('m1', 'k2', 1, 'USD', 'cut off');
			INSERT INTO ledger (merchant, idem_key, payment_gid, amount) VALUES ('m1', 'k1', 'gid://example/Payment/1', 1)`); err != nil {
			t.Fatal(err)
		}
		svc, err := startGraphQLProcess(t.Context(), dbURL, bug)
		if err != nil {
			t.Fatalf("bug %q: %v", bug, err)
		}
		svc.pool.Close()
		wantP, wantK := 1, map[string]int{"": 1, "keeps-claims": 2}[bug]
		if p, k := apitest.Count(t, pool, `SELECT count(*) FROM payments`), apitest.Count(t, pool, `SELECT count(*) FROM idempotency_keys`); p != wantP || k != wantK {
			t.Errorf("bug %q: %d payments, %d key rows after start-up; want %d and %d", bug, p, k, wantP, wantK)
		}
	}
}
