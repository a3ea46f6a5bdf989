package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/report"
	"github.com/idemstress/idemstress/stress"
	"github.com/idemstress/idemstress/target"
)

// demoExpected is what the demo expects of each mode of the sample service:
// the correct one passes, each bug is caught by its check.
var demoExpected = map[string]checks.ID{
	"outbox-on-retry":  checks.DuplicateEffect,
	"no-payload-check": checks.ChangedAccepted,
	"global-keys":      checks.TenantLeak,
}

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "idemstress demo: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	servers, cleanup, err := demoDatabases(ctx, f.databaseURL, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress demo: %v\n", err)
		if errors.Is(err, pgtemp.ErrNoBinaries) {
			return exitUsage
		}
		return exitInconclusive
	}
	defer cleanup()

	modes := append([]string{"correct"}, ticketsvc.Bugs()...)
	var cases []report.Case
	code := exitPass
	for _, mode := range modes {
		cs, err := demoMode(ctx, servers, mode, f, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "idemstress demo: %s: %v\n", mode, err)
			return exitInconclusive
		}
		cases = append(cases, *cs)
		if !cs.AsExpected() {
			code = exitViolations
			if cs.Verdict == "inconclusive" {
				code = exitInconclusive
			}
		}
		if ctx.Err() != nil {
			code = exitInconclusive
			break
		}
	}
	if err := write(stdout, f.json, cases); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return code
}

// demoDatabases returns a function that makes a fresh database per target:
// on the server at url, or on a throwaway cluster when url is "".
func demoDatabases(ctx context.Context, url string, stderr io.Writer) (func(context.Context, string) (string, error), func(), error) {
	url = firstNonEmpty(url, os.Getenv("DATABASE_URL"))
	if url == "" {
		fmt.Fprintln(stderr, "idemstress demo: starting a throwaway PostgreSQL cluster")
		cluster, err := pgtemp.Start(ctx, pgtemp.Options{})
		if err != nil {
			return nil, nil, err
		}
		return cluster.CreateDatabase, func() { _ = cluster.Close() }, nil
	}
	pool, err := connect(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	run := time.Now().UnixNano()
	create := func(ctx context.Context, name string) (string, error) {
		db := fmt.Sprintf("%s_%d", name, run)
		if _, err := pool.Exec(ctx, "CREATE DATABASE "+db); err != nil {
			return "", fmt.Errorf("creating database %s (the demo needs CREATEDB on --database-url): %w", db, err)
		}
		cfg := pool.Config().ConnConfig.Copy()
		cfg.Database = db
		return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, db), nil
	}
	return create, pool.Close, nil
}

// demoMode starts the sample service in one mode, in-process on a loopback
// port over a database of its own, and runs the tester against it.
func demoMode(ctx context.Context, createDB func(context.Context, string) (string, error), mode string, f runFlags, stderr io.Writer) (*report.Case, error) {
	bug := mode
	if mode == "correct" {
		bug = ""
	}
	url, err := createDB(ctx, "demo_"+strings.ReplaceAll(mode, "-", "_"))
	if err != nil {
		return nil, err
	}
	pool, err := connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if err := ticketsvc.Migrate(ctx, pool); err != nil {
		return nil, err
	}
	svc, err := ticketsvc.New(pool, ticketsvc.Options{Bug: bug})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		<-served
	}()

	contract, err := stress.ParseContract("examples/ticketsvc/contract.yaml", ticketsvc.Contract)
	if err != nil {
		return nil, err
	}
	contract.Target.URL = "http://" + ln.Addr().String() + "/tickets"
	tgt, err := target.NewHTTP(contract.Target, nil)
	if err != nil {
		return nil, err
	}
	world := gen.DefaultWorld()
	world.KeyRequired = contract.KeyRequired
	fmt.Fprintf(stderr, "idemstress demo: %s on %s\n", mode, ln.Addr())
	cfg := stress.Config{Contract: contract.Model, Effects: contract.Effects, Target: tgt, DB: pool, World: world,
		Plans: f.plans, Seed: f.seed, ShrinkTime: f.shrinkTime}
	res, err := stress.Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cs := caseOf(mode, res)
	cs.Expected = "pass"
	if id, ok := demoExpected[bug]; ok {
		cs.Expected = string(id)
	}
	return &cs, nil
}
