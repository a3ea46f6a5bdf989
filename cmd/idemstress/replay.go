package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// replayCmd re-runs regression case files against the target of a
// contract, each under the replicas, sync and db-stall it was found with
// unless --replicas, --sync or --db-stall say otherwise: one line per case,
// pass (its check stayed silent) or fail (it fired again), then the
// history of each failure.
func replayCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if wantsHelp(args) {
		fs.SetOutput(stdout)
	}
	var src sourceFlags
	src.register(fs)
	var h huntFlags
	h.register(fs)
	duration := fs.Duration("duration", 0, "try a race left to timing (a burst with no db-stall) this long, once 12 tries have run, before calling it passed (0: a minute)")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if *duration < 0 {
		fmt.Fprintf(stderr, "idemstress replay: --duration %s: want a positive duration such as 5m\n", *duration)
		return exitUsage
	}
	if src.config == "" || len(paths) == 0 {
		fmt.Fprintln(stderr, "idemstress replay: want FILE|DIR... and --config FILE")
		return exitUsage
	}
	cases, err := regress.LoadContext(ctx, paths...)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return refusedInput(ctx)
	}
	cfg, err := loadConfig(fs, src.config, h)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return exitUsage
	}
	overrideHunts(fs, h, cfg, cases)
	cfg.DatabaseURL = cmp.Or(src.databaseURL, cfg.DatabaseURL)
	cfg.Log = stderr
	cfg.Duration = *duration
	outs, err := regress.Run(ctx, cfg, cases)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress: %v\n", err)
		return exitFor(err)
	}
	code, err := writeOutcomes(stdout, outs)
	if err != nil {
		return exitInconclusive
	}
	explainOutcomes(stdout, stderr, outs)
	if len(outs) < len(cases) {
		fmt.Fprintf(stderr, "idemstress: interrupted after %d of %d case(s)\n", len(outs), len(cases))
		if code == exitPass {
			code = exitInconclusive
		}
	}
	return code
}

// writeOutcomes prints a line per replayed case and returns the exit code
// they give: a case that fired again fails the replay.
func writeOutcomes(w io.Writer, outs []regress.Outcome) (int, error) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	// TRIED says how often the plan ran: a pass of a racy case is its check
	// staying silent that many times, not once.
	fmt.Fprintln(tw, "CASE\tVERDICT\tTRIED\tCHECK\tFIRED\tPLAN")
	code := exitPass
	for _, o := range outs {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", o.Case.Name, o.Verdict, o.Attempts, o.Max, o.Case.Check.ID, report.IDs(o.Checks()), o.Case.PlanText)
		switch {
		case o.Verdict == checks.Fail:
			code = exitViolations
		case o.Verdict == checks.Inconclusive && code == exitPass:
			code = exitInconclusive
		}
	}
	return code, tw.Flush()
}

// explainOutcomes prints, under the table, the history of each case that
// fired again and why each inconclusive one was, each case's warnings on
// stderr.
func explainOutcomes(w, stderr io.Writer, outs []regress.Outcome) {
	for _, o := range outs {
		for _, warning := range o.Warnings {
			fmt.Fprintf(stderr, "idemstress: warning: %s: %s\n", o.Case.Path, warning)
		}
		switch o.Verdict {
		case checks.Fail:
			fmt.Fprintf(w, "\n%s: %s fired again (%s)\n", o.Case.Path, o.Case.Check.ID, o.Case.Check.Message)
			fmt.Fprint(w, indent(report.Explain(o.Case.Plan, o.Trial.History, o.Trial.Violations)))
		case checks.Inconclusive:
			fmt.Fprintf(w, "\n%s: inconclusive: %v\n", o.Case.Path, o.Err)
		}
	}
}

// overrideHunts sets the hunt flags given on fs, already applied to cfg,
// on the hunt each case recorded: a case replays under the hunt it was
// found with (regress.Run), unless the command line says otherwise.
func overrideHunts(fs *flag.FlagSet, h huntFlags, cfg stress.Config, cases []regress.Case) {
	for i := range cases {
		if cases[i].Hunt == nil {
			continue // an older case: cfg, flags applied, is what it replays under
		}
		r := *cases[i].Hunt
		if h.replicas > 0 {
			r.Replicas = h.replicas
		}
		if h.sync != "" {
			r.Sync = cfg.Sync
		}
		if isSet(fs, "db-stall") {
			r.DBStall = cfg.DBStall
		}
		cases[i].Hunt = &r
	}
}

// indent indents every line of s by four spaces.
func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments (replay FILE... --config FILE) and returns the
// positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
