package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/process"
	"github.com/idemstress/idemstress/report"
	"github.com/idemstress/idemstress/stress"
)

// runFlags are the flags run and demo share.
type runFlags struct {
	databaseURL string
	plans       int
	seed        uint64
	shrinkTime  time.Duration
	json        bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.databaseURL, "database-url", "", "PostgreSQL URL of the target's database (default $DATABASE_URL)")
	fs.IntVar(&f.plans, "plans", 100, "random plans to try per target")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for a repeatable run (0: random, printed)")
	fs.DurationVar(&f.shrinkTime, "shrink-time", 30*time.Second, "time allowed to shrink a failing plan")
	fs.BoolVar(&f.json, "json", false, "print JSON instead of a table")
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs)
	config := fs.String("config", "", "contract file (YAML), see README.md")
	replicas := fs.Int("replicas", 0, "replicas of the service to start (overrides process.replicas)")
	syncMode := fs.String("sync", "", "how bursts are released: lastbyte or naive (overrides sync)")
	dbStall := fs.String("db-stall", "", "effect table to write-lock while each burst is released (overrides db_stall)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *config == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "idemstress run: want --config FILE and no other arguments")
		return exitUsage
	}
	c, err := stress.LoadContract(*config)
	if err == nil {
		err = override(c, *replicas, *syncMode, *dbStall)
	}
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return exitUsage
	}
	url := firstNonEmpty(f.databaseURL, os.Getenv("DATABASE_URL"), c.DatabaseURL)
	if url == "" && c.Process == nil {
		fmt.Fprintln(stderr, "idemstress run: no database to read the effect tables from: pass --database-url, set DATABASE_URL, or set database_url in the contract")
		return exitUsage
	}
	if url == "" {
		// idemstress starts the service, so it can give it a throwaway database.
		fmt.Fprintln(stderr, "idemstress run: starting a throwaway PostgreSQL cluster for the service")
		cluster, err := pgtemp.Start(ctx, pgtemp.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "idemstress: %v\n", err)
			return exitFor(err)
		}
		defer cluster.Close()
		if url, err = cluster.CreateDatabase(ctx, "idemstress"); err != nil {
			fmt.Fprintf(stderr, "idemstress: %v\n", err)
			return exitInconclusive
		}
	}
	pool, err := connect(ctx, url)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return exitFor(err)
	}
	defer pool.Close()
	tgt, err := client.NewHTTP(c.Target, nil)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %s: %v\n", *config, err)
		return exitUsage
	}
	if c.Process != nil {
		procs, err := process.Start(ctx, *c.Process, url)
		if err != nil {
			fmt.Fprintf(stderr, "idemstress: starting the service: %v\n", err)
			return exitInconclusive
		}
		defer procs.Stop()
		tgt = tgt.WithHosts(procs.Addrs())
		fmt.Fprintf(stderr, "idemstress run: started %d replica(s) at %s\n", len(procs.Addrs()), strings.Join(procs.Addrs(), ", "))
	}
	world := gen.DefaultWorld()
	world.KeyRequired = c.KeyRequired
	cfg := stress.Config{Contract: c.Model, Effects: c.Effects, Target: tgt, DB: pool, World: world,
		Plans: f.plans, Seed: f.seed, ShrinkTime: f.shrinkTime, Sync: c.Sync, DBStall: c.DBStall}
	cs, code := runTarget(ctx, c.Target.URL, cfg, stderr)
	if cs == nil {
		return code
	}
	if err := write(stdout, f.json, []report.Case{*cs}); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return code
}

// override applies the run flags that change the contract.
func override(c *stress.Contract, replicas int, syncMode, dbStall string) error {
	if replicas > 0 {
		if c.Process == nil {
			return fmt.Errorf("--replicas %d: the contract has no process section, so idemstress does not start the service", replicas)
		}
		c.Process.Replicas = replicas
	}
	if syncMode != "" {
		mode, err := client.ParseSyncMode(syncMode)
		if err != nil {
			return fmt.Errorf("--sync: %w", err)
		}
		c.Sync = mode
	}
	if dbStall != "" {
		c.DBStall = dbStall
	}
	return nil
}

// runTarget runs one target and turns the result into a report case and an
// exit code; a nil case means the run could not start (the error is printed).
func runTarget(ctx context.Context, name string, cfg stress.Config, stderr io.Writer) (*report.Case, int) {
	res, err := stress.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %s: %v\n", name, err)
		return nil, exitFor(err)
	}
	cs := caseOf(name, res)
	switch res.Verdict {
	case stress.Fail:
		return &cs, exitViolations
	case stress.Inconclusive:
		return &cs, exitInconclusive
	}
	return &cs, exitPass
}

func caseOf(name string, res *stress.Result) report.Case {
	cs := report.Case{Target: name, Verdict: "pass", Plans: res.Plans, Seed: res.Seed, Checks: []checks.ID{},
		Seconds: res.Total.Seconds()}
	if res.Err != nil {
		cs.Error = res.Err.Error()
	}
	switch res.Verdict {
	case stress.Fail:
		cs.Verdict = "caught"
		cs.Violations = res.Outside
		if f := res.Failure; f != nil {
			cs.MinimalPlan = &f.Plan
			cs.MinimalSteps, cs.MinimalCalls = len(f.Plan.Steps), f.Plan.NumCalls()
			cs.Violations, cs.History = append(slices.Clone(f.Violations), res.Outside...), f.History
			cs.Seconds, cs.ShrinkSeconds = res.Detect.Seconds(), (res.Total - res.Detect).Seconds()
		}
		cs.Checks = checks.Fired(cs.Violations)
		cs.Flaky = res.Flaky
	case stress.Inconclusive:
		cs.Verdict = "inconclusive"
	}
	return cs
}

func write(w io.Writer, asJSON bool, cases []report.Case) error {
	if asJSON {
		return report.WriteJSON(w, cases)
	}
	return report.WriteTable(w, cases)
}

var errBadURL = errors.New("bad database URL")

// connect opens a pool and proves the database answers.
func connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadURL, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("database unreachable at %s:%d: %w (is it running? is the URL right?)", cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	return pool, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
