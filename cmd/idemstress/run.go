package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/stress"
)

// runFlags are the flags run and demo share.
type runFlags struct {
	sourceFlags
	plans      int
	seed       uint64
	shrinkTime time.Duration
	workers    int
	maxBugs    int
	json       bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.registerDatabase(fs)
	fs.IntVar(&f.plans, "plans", 100, "random plans to try per target")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for a repeatable run (0: random, printed)")
	fs.DurationVar(&f.shrinkTime, "shrink-time", 30*time.Second, "time allowed to shrink a failing plan")
	fs.IntVar(&f.workers, "workers", 1, "plans run at once while searching (each in its own namespace)")
	fs.IntVar(&f.maxBugs, "max-bugs", 0, "end the search once this many bugs are found (0: report every bug the plans show)")
	fs.BoolVar(&f.json, "json", false, "print JSON instead of a table")
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	var a artefacts
	a.register(fs)
	f.registerConfig(fs)
	var h huntFlags
	h.register(fs)
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return refused(stderr, args, stress.Config{}, err)
	}
	if f.config == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "idemstress run: want --config FILE and no other arguments")
		return refused(stderr, args, stress.Config{}, errors.New("want --config FILE and no other arguments"))
	}
	if err := f.check(fs); err != nil {
		fmt.Fprintf(stderr, "idemstress run: %v\n", err)
		return refused(stderr, args, stress.Config{}, err)
	}
	cfg, err := loadConfig(fs, f.config, h)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return refused(stderr, args, cfg, err)
	}
	f.apply(&cfg)
	cfg.Log = stderr
	a.config = f.config
	cases, code := runTarget(ctx, cfg, stderr, a)
	if cases == nil {
		return code
	}
	if err := write(stdout, f.json, cases); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return code
}

// check refuses flag values that have no meaning, before anything runs:
// a negative count or duration was silently taken for the default.
func (f runFlags) check(fs *flag.FlagSet) error {
	for _, name := range []string{"plans", "workers", "max-bugs"} {
		if fl := fs.Lookup(name); fl != nil && strings.HasPrefix(fl.Value.String(), "-") {
			return fmt.Errorf("--%s %s: want 0 or more", name, fl.Value)
		}
	}
	if f.workers > stress.MaxWorkers {
		return fmt.Errorf("--workers %d: want at most %d", f.workers, stress.MaxWorkers)
	}
	for _, name := range []string{"shrink-time", "duration", "progress"} {
		if fl := fs.Lookup(name); fl != nil && strings.HasPrefix(fl.Value.String(), "-") {
			return fmt.Errorf("--%s %s: want a positive duration such as 30s", name, fl.Value)
		}
	}
	return nil
}

// apply sets the run flags on a config; a database URL given by flag wins
// over DATABASE_URL and the contract's.
func (f runFlags) apply(cfg *stress.Config) {
	if f.databaseURL != "" {
		cfg.DatabaseURL = f.databaseURL
	}
	cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.Workers, cfg.MaxBugs = f.plans, f.seed, f.shrinkTime, f.workers, f.maxBugs
}

// huntFlags are the flags of run and replay that override the contract's
// process.replicas, sync and db_stall: how hard a run hunts. A case found
// with them may show its bug only with them (an in-process mutex needs two
// replicas), so a case file records them and replay repeats them; replay
// takes these flags too, to override what a case recorded.
type huntFlags struct {
	replicas   int
	sync       string
	dbStall    string
	serviceLog string
	dbProxy    string
}

func (h *huntFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&h.replicas, "replicas", 0, "replicas of the service to start (overrides process.replicas)")
	fs.StringVar(&h.sync, "sync", "", "how bursts are released: lastbyte or naive (overrides sync)")
	fs.StringVar(&h.dbStall, "db-stall", "", "table to write-lock while each burst is released (overrides db_stall; \"\" for none)")
	fs.StringVar(&h.dbProxy, "db-proxy", "", "put a PostgreSQL proxy on this loopback address (127.0.0.1:6543) in front of the database, for a service started elsewhere: point the service's database URL at it (the run prints it)")
	fs.StringVar(&h.serviceLog, "service-log", "", "append the output of the service and its dependencies to this file (overrides process.log)")
}

// loadConfig reads a contract file and applies the hunt flags given on fs.
func loadConfig(fs *flag.FlagSet, path string, h huntFlags) (stress.Config, error) {
	cfg, err := stress.Load(path)
	if err == nil {
		err = h.apply(fs, &cfg)
	}
	return cfg, err
}

// apply sets the hunt flags given on fs on a config.
func (h huntFlags) apply(fs *flag.FlagSet, c *stress.Config) error {
	if isSet(fs, "replicas") {
		switch {
		case h.replicas < 1 || h.replicas > process.MaxReplicas:
			return fmt.Errorf("--replicas %d: want 1 to %d", h.replicas, process.MaxReplicas)
		case c.Process == nil:
			return fmt.Errorf("--replicas %d: the contract has no process section, so idemstress does not start the service", h.replicas)
		}
		c.Process.Replicas = h.replicas
	}
	if h.sync != "" {
		mode, err := client.ParseSyncMode(h.sync)
		if err != nil {
			return fmt.Errorf("--sync: %w", err)
		}
		c.Sync = mode
	}
	if isSet(fs, "service-log") {
		if c.Process == nil {
			return fmt.Errorf("--service-log %s: the contract has no process section, so idemstress does not start the service", h.serviceLog)
		}
		c.Process.Log = h.serviceLog
	}
	if isSet(fs, "db-stall") {
		c.DBStall = h.dbStall // "" turns the contract's stall off
	}
	if h.dbProxy != "" {
		c.DBProxy = h.dbProxy
	}
	return nil
}

// shellWord is s as one word of a POSIX shell command line.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runTarget runs one target, writes its artefacts, and turns the result
// into report cases, one for each bug found, and an exit code; no cases
// means the run could not start (the error is printed).
func runTarget(ctx context.Context, cfg stress.Config, stderr io.Writer, a artefacts) ([]report.Row, int) {
	res, code := runArtefacts(ctx, cfg, stderr, a, 10*time.Second)
	if res == nil {
		return nil, code
	}
	return res.Rows(res.Target), code
}

// runArtefacts runs cfg with progress on stderr (a line every interval
// when stderr is not a terminal), writes each failure's artefacts, and
// returns the result and its exit code; a nil result means the run could
// not start (the error is printed), and a result with exit 2 holds the
// bugs found before a contract error ended the run (Result.Contract).
func runArtefacts(ctx context.Context, cfg stress.Config, stderr io.Writer, a artefacts, every time.Duration) (*stress.Result, int) {
	progress := newProgress(stderr, "")
	progress.interval = every
	cfg.Progress = progress.Update
	res, err := stress.Run(ctx, cfg)
	progress.Done()
	if err != nil && res != nil {
		// A contract error after bugs were found: the bugs are reported
		// with it (each row's contract_error), and the run exits 2, as
		// the contract must be fixed before they are believed.
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
	} else if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		// CI reads the JUnit file whatever happened: a run that could not
		// start is reported (every check skipped, with the reason), never
		// left absent or stale from an earlier night.
		if err := writeJUnit(cfg, &stress.Result{Target: cfg.HTTP.URL, Seed: cfg.Seed, Err: err}, nil, a); err != nil {
			fmt.Fprintf(stderr, "idemstress: %v\n", err)
		}
		return nil, exitFor(err)
	}
	code := exitOf(res.Verdict)
	if err != nil {
		code = exitFor(err)
	}
	for _, f := range res.Failures {
		if err := writeArtefacts(stderr, cfg, res, f, a); err != nil {
			fmt.Fprintf(stderr, "idemstress: %v\n", err)
			code = artefactFailed(code)
		}
	}
	if err := writeJUnit(cfg, res, res.Failures, a); err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		code = artefactFailed(code)
	}
	return res, code
}

// artefactFailed is the exit code of a run whose case file, timeline or
// JUnit report could not be written: a run that found bugs still exits 1
// (the error is printed beside them), one that did not cannot be trusted
// to have reported everything and exits 3.
func artefactFailed(code int) int {
	if code == exitViolations {
		return code
	}
	return exitInconclusive
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

func write(w io.Writer, asJSON bool, cases []report.Row) error {
	if asJSON {
		return report.WriteJSON(w, cases)
	}
	return report.WriteTable(w, cases)
}
