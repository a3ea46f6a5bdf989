package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/report"
	"github.com/idemstress/idemstress/stress"
)

// runFlags are the flags run and demo share.
type runFlags struct {
	databaseURL string
	plans       int
	seed        uint64
	shrinkTime  time.Duration
	workers     int
	json        bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.databaseURL, "database-url", "", "PostgreSQL URL of the target's database (default $DATABASE_URL)")
	fs.IntVar(&f.plans, "plans", 100, "random plans to try per target")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for a repeatable run (0: random, printed)")
	fs.DurationVar(&f.shrinkTime, "shrink-time", 30*time.Second, "time allowed to shrink a failing plan")
	fs.IntVar(&f.workers, "workers", 1, "plans run at once while searching (each in its own namespace)")
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
	dbStall := fs.String("db-stall", "", "table to write-lock while each burst is released (overrides db_stall; \"\" for none)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *config == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "idemstress run: want --config FILE and no other arguments")
		return exitUsage
	}
	cfg, err := stress.Load(*config)
	if err == nil {
		err = override(&cfg, *replicas, *syncMode)
	}
	if isSet(fs, "db-stall") {
		cfg.DBStall = *dbStall // "" turns the contract's stall off
	}
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return exitUsage
	}
	f.apply(&cfg)
	cfg.Log = stderr
	cs, code := runTarget(ctx, cfg, stderr)
	if cs == nil {
		return code
	}
	if err := write(stdout, f.json, []report.Case{*cs}); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return code
}

// apply sets the run flags on a config; a database URL given by flag wins
// over DATABASE_URL and the contract's.
func (f runFlags) apply(cfg *stress.Config) {
	if f.databaseURL != "" {
		cfg.DatabaseURL = f.databaseURL
	}
	cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.Workers = f.plans, f.seed, f.shrinkTime, f.workers
}

// override applies the run flags that change the contract.
func override(c *stress.Config, replicas int, syncMode string) error {
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
	return nil
}

// runTarget runs one target and turns the result into a report case and an
// exit code; a nil case means the run could not start (the error is printed).
func runTarget(ctx context.Context, cfg stress.Config, stderr io.Writer) (*report.Case, int) {
	res, err := stress.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return nil, exitFor(err)
	}
	cs := res.Case(res.Target)
	return &cs, exitOf(res.Verdict)
}

// exitOf is the exit code of a verdict.
func exitOf(v checks.Verdict) int {
	switch v {
	case checks.Fail:
		return exitViolations
	case checks.Inconclusive:
		return exitInconclusive
	}
	return exitPass
}

func write(w io.Writer, asJSON bool, cases []report.Case) error {
	if asJSON {
		return report.WriteJSON(w, cases)
	}
	return report.WriteTable(w, cases)
}
