package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/stress"
)

// stressReport is what `stress` writes, and what `merge` reads and writes:
// one shard's run, or several merged.
type stressReport struct {
	Verdict checks.Verdict `json:"verdict"`
	Target  string         `json:"target"`
	Seed    uint64         `json:"seed"`
	// Shards lists the shards in the report ("2/4"); empty for a run
	// that was not sharded.
	Shards []string `json:"shards,omitempty"`
	// Plans counts the plans the search tried, Executions every plan
	// executed (shrinking included), Calls their calls.
	Plans       int     `json:"plans"`
	Executions  int     `json:"executions"`
	Calls       int     `json:"calls"`
	FaultsFired int     `json:"faults_fired"`
	Seconds     float64 `json:"seconds"`
	Interrupted bool    `json:"interrupted,omitempty"`
	// Coverage counts the transitions the executions made (summed over
	// shards), and CheckStatus says of every check whether it failed,
	// passed or was not exercised (in no shard).
	Coverage    coverage.Coverage           `json:"coverage,omitempty"`
	CheckStatus map[checks.ID]checks.Status `json:"check_status,omitempty"`
	// Cases has one case for each bug found, most severe first, or one
	// for the whole run when nothing failed.
	Cases []report.Row `json:"cases"`
	// ContractError is the contract error that ended a run after it had
	// found the bugs in Cases (exit 2).
	ContractError string `json:"contract_error,omitempty"`
}

// stressCmd runs a search until --duration or --plans ends it, as a
// nightly job does, optionally as one shard of several, and prints a
// report that merge can combine with the other shards'.
func stressCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stress", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	var a artefacts
	a.register(fs)
	fs.Lookup("plans").Usage = "plans to try (0: no limit; --duration ends the run)"
	fs.Lookup("plans").DefValue = "0"
	f.plans = 0
	f.registerConfig(fs)
	var h huntFlags
	h.register(fs)
	duration := fs.Duration("duration", 0, "run until this much time is spent (0: until --plans are)")
	every := fs.Duration("progress", 10*time.Second, "how often to print a progress line when stderr is not a terminal")
	shard := fs.String("shard", "", "i/n: run shard i (0 ≤ i < n) of a job split n ways (with --seed, the same for every shard, each shard's seed is derived from it and i)")
	// A run refused before it starts still writes its --junit report, as
	// run's does: a nightly job's dashboard shows why nothing ran.
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return refused(stderr, args, stress.Config{}, err)
	}
	if why := stressUsage(fs, f, *duration); why != "" {
		fmt.Fprintln(stderr, "idemstress stress: "+why)
		return refused(stderr, args, stress.Config{}, errors.New(why))
	}
	cfg, err := loadConfig(fs, f.config, h)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return refused(stderr, args, cfg, err)
	}
	f.apply(&cfg)
	if f.plans <= 0 {
		cfg.Plans = math.MaxInt
	}
	cfg.Duration = *duration
	rep := stressReport{Seed: f.seed}
	if *shard != "" {
		label, err := applyShard(&cfg, *shard, f.seed)
		if err != nil {
			fmt.Fprintf(stderr, "idemstress stress: %v\n", err)
			return refused(stderr, args, cfg, err)
		}
		rep.Shards = []string{label}
	}
	cfg.Log = stderr
	a.config = f.config
	res, code := runArtefacts(ctx, cfg, stderr, a, *every)
	if res == nil {
		return code
	}
	rep.fill(res)
	if res.Interrupted {
		fmt.Fprintf(stderr, "idemstress: interrupted after %d plans; the report holds the %d bug(s) found until then\n", res.Searched, len(res.Failures))
	}
	if err := writeStress(stdout, f.json, rep); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return code
}

// applyShard makes cfg shard i/n of a job: the job's namespace, shared
// by every shard, and a seed of its own derived from the job's, when one
// was given. It returns the shard's label, "i/n".
func applyShard(cfg *stress.Config, shard string, seed uint64) (string, error) {
	i, n, err := parseShard(shard)
	if err != nil {
		return "", err
	}
	cfg.Namespace = jobNamespace(seed)
	if seed != 0 {
		cfg.Seed = stress.DeriveSeed(seed, i)
	}
	return fmt.Sprintf("%d/%d", i, n), nil
}

// stressUsage says what is wrong with stress's arguments, "" when nothing.
func stressUsage(fs *flag.FlagSet, f runFlags, duration time.Duration) string {
	switch {
	case f.config == "" || fs.NArg() > 0:
		return "want --config FILE and no other arguments"
	case f.check(fs) != nil:
		return f.check(fs).Error()
	case f.plans <= 0 && duration <= 0:
		return "want --duration D or --plans N (or both): a nightly run needs an end"
	}
	return ""
}

// fill writes a run's result into the report: its verdict, tallies, rows
// and coverage, and the seed the run drew when none was given.
func (rep *stressReport) fill(res *stress.Result) {
	if rep.Seed == 0 {
		rep.Seed = res.Seed
	}
	rep.Verdict, rep.Target, rep.Interrupted = res.Verdict, res.Target, res.Interrupted
	rep.Plans, rep.Executions, rep.Calls, rep.FaultsFired = res.Searched, res.Executions, res.Calls, res.FaultsFired
	rep.Seconds = res.Total.Seconds()
	rep.Cases = res.Rows(res.Target)
	rep.Coverage, rep.CheckStatus = res.Coverage, res.Statuses()
	if res.Contract != nil {
		rep.ContractError = model.CutLines(res.Contract.Error())
	}
}

// parseShard reads "i/n".
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 ≤ i < n, e.g. 0/4 (a Kubernetes Indexed Job's $JOB_COMPLETION_INDEX/4)", s)
	}
	return i, n, nil
}

// jobNamespace is the namespace every shard of a job shares, so that none
// takes another's rows for changes outside its run (each run adds a
// random part of its own below it): derived from the job's seed, or one
// for every sharded run when the shards draw seeds of their own.
func jobNamespace(seed uint64) string {
	if seed == 0 {
		return "isj-"
	}
	return fmt.Sprintf("isj%06x-", stress.DeriveSeed(seed, -1)&0xffffff)
}

// writeStress prints a stress report: JSON, or a summary line and the
// report's table.
func writeStress(w io.Writer, asJSON bool, rep stressReport) error {
	if asJSON {
		return report.EncodeJSON(w, rep)
	}
	shards := ""
	if len(rep.Shards) > 0 {
		shards = fmt.Sprintf(", shards %s", strings.Join(rep.Shards, " "))
	}
	bugs := 0
	for _, c := range rep.Cases {
		if c.MinimalPlan != nil {
			bugs++
		}
	}
	if _, err := fmt.Fprintf(w, "%s: %d bug(s) in %d plans (%d executions, %d calls, %d faults fired) in %s, seed %d%s\n\n",
		rep.Verdict, bugs, rep.Plans, rep.Executions, rep.Calls, rep.FaultsFired, (time.Duration(rep.Seconds * float64(time.Second))).Round(time.Millisecond), rep.Seed, shards); err != nil {
		return err
	}
	return report.WriteTable(w, rep.Cases)
}
