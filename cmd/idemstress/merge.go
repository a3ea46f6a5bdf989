package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/report"
)

// mergeCmd combines the JSON reports of a job's shards into one: the worst
// verdict, every bug once (by what went wrong; the smallest minimal plan kept),
// the counts and the coverage summed.
func mergeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return parseExit(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "idemstress merge: want one or more report files written by stress --json")
		return exitUsage
	}
	reps, err := readReports(ctx, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "idemstress merge: %v\n", err)
		return refusedInput(ctx)
	}
	merged := merge(reps)
	if err := writeStress(stdout, *asJSON, merged); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return exitOf(merged.Verdict)
}

// verdictRank orders verdicts from the best to the worst.
var verdictRank = map[checks.Verdict]int{checks.Pass: 0, checks.Inconclusive: 1, checks.Fail: 2}

// merge combines shard reports.
func merge(reps []stressReport) stressReport {
	out := stressReport{Verdict: checks.Pass, Seed: reps[0].Seed, Target: reps[0].Target}
	for _, r := range reps {
		out.addTallies(r)
	}
	out.Cases = mergeCases(reps)
	if len(out.Cases) == 0 {
		out.Cases = []report.Row{{Target: out.Target, Verdict: out.Verdict, Checks: []checks.ID{}, Plans: out.Plans, Seed: out.Seed, Seconds: out.Seconds}}
	}
	if out.Coverage != nil {
		// A check is exercised when some shard exercised it: the sum has
		// the transition then.
		var fired []checks.ID
		for _, c := range out.Cases {
			fired = append(fired, c.Checks...)
		}
		out.CheckStatus = checks.Statuses(out.Coverage, fired, out.Verdict == checks.Inconclusive)
		for i := range out.Cases {
			out.Cases[i].Coverage, out.Cases[i].CheckStatus = out.Coverage, out.CheckStatus
		}
	}
	return out
}

// addTallies adds a shard's verdict, counts and coverage to out's: the
// worst verdict, the sums, and the longest time, since shards run side by
// side.
func (out *stressReport) addTallies(r stressReport) {
	if verdictRank[r.Verdict] > verdictRank[out.Verdict] {
		out.Verdict = r.Verdict
	}
	out.Shards = append(out.Shards, r.Shards...)
	out.Plans += r.Plans
	out.Executions += r.Executions
	out.Calls += r.Calls
	out.FaultsFired += r.FaultsFired
	out.Seconds = max(out.Seconds, r.Seconds)
	out.Interrupted = out.Interrupted || r.Interrupted
	// A report from elsewhere may hold errors quoting 200 KB: cut as
	// every message idemstress writes is (violations cut their own).
	out.ContractError = model.CutLines(cmp.Or(out.ContractError, r.ContractError))
	if r.Coverage != nil {
		if out.Coverage == nil {
			out.Coverage = coverage.Coverage{}
		}
		out.Coverage.Add(r.Coverage)
	}
}

// mergeCases keeps one row per bug, the smallest of the shards', with the
// rows another row lists as its sightings folded under it, in catalogue
// order; then the rows that found no bug and did not pass.
func mergeCases(reps []stressReport) []report.Row {
	byBug := map[string]report.Row{}
	var others []report.Row
	for _, r := range reps {
		for _, c := range r.Cases {
			c.Error, c.ContractError = model.CutLines(c.Error), model.CutLines(c.ContractError)
			if c.MinimalPlan == nil || len(c.Checks) == 0 {
				if c.Verdict != checks.Pass {
					others = append(others, c) // inconclusive, or changes outside the namespace
				}
				continue
			}
			// Two bugs of one check (a wrong status in sequence, a 500 in a
			// burst) are two; a report without bug names (older) by check.
			bug := cmp.Or(c.Bug, string(c.Checks[0]))
			if old, ok := byBug[bug]; !ok || smaller(c, old) {
				byBug[bug] = c
			}
		}
	}
	// A shard whose row is another shard's sighting saw the same bug
	// another way: it is listed under that row, not beside it.
	for bug, c := range byBug {
		for _, s := range c.Sightings {
			if _, ok := byBug[s.Bug]; ok && s.Bug != bug {
				delete(byBug, s.Bug)
			}
		}
	}
	var cases []report.Row
	for _, c := range byBug {
		cases = append(cases, c)
	}
	rank := func(id checks.ID) int { _, r := checks.Lookup(id); return r }
	slices.SortFunc(cases, func(a, b report.Row) int {
		return cmp.Or(cmp.Compare(rank(a.Checks[0]), rank(b.Checks[0])), cmp.Compare(a.Bug, b.Bug))
	})
	return append(cases, others...)
}

// smaller reports whether a's minimal plan is smaller than b's.
func smaller(a, b report.Row) bool {
	return cmp.Or(cmp.Compare(a.MinimalCalls, b.MinimalCalls), cmp.Compare(a.MinimalSteps, b.MinimalSteps)) < 0
}

// refusedInput is the exit code of an input file refused: a usage error,
// unless a signal cut the reading short.
func refusedInput(ctx context.Context) int {
	if ctx.Err() != nil {
		return exitInconclusive
	}
	return exitUsage
}
