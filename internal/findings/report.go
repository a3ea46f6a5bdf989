package findings

import (
	"slices"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

// Row is the result as one row of a report, under the given target name:
// its first bug (a root cause), the checks of every bug found, and the changes
// outside the namespace.
func (res *Result) Row(target string) report.Row {
	cs := res.Rows(target)[0]
	if len(res.Failures) > 1 {
		cs.Checks = []checks.ID{}
		for _, f := range res.Failures {
			cs.Checks = append(cs.Checks, f.Check)
		}
		cs.Checks = append(cs.Checks, checks.IDsOf(res.Outside)...)
	}
	return cs
}

// Rows are the result as rows of a report, one for each bug found (most
// severe first; the changes outside the namespace with the first), or one
// for the whole run when no plan failed.
func (res *Result) Rows(target string) []report.Row {
	base := report.Row{Target: target, Verdict: res.Verdict, Plans: res.Plans, Seed: res.Seed, Checks: []checks.ID{},
		Seconds: res.Total.Seconds(), Violations: res.Outside, Flaky: res.Flaky, Faults: res.Faults}
	// Errors may quote a service's output or a contract line: cut as
	// every message is (model.CutLines).
	if res.Err != nil {
		base.Error = model.CutLines(res.Err.Error())
	}
	if res.Contract != nil {
		base.ContractError = model.CutLines(res.Contract.Error())
	}
	if res.Coverage != nil {
		base.Coverage, base.CheckStatus = res.Coverage, res.Statuses()
	}
	if len(res.Failures) == 0 {
		base.Checks = checks.IDsOf(base.Violations)
		return []report.Row{base}
	}
	var out []report.Row
	for i, f := range res.Failures {
		cs := base
		cs.MinimalPlan = &f.Plan
		cs.MinimalSteps, cs.MinimalCalls = len(f.Plan.Steps), f.Plan.NumCalls()
		cs.Violations, cs.History = slices.Clone(f.Violations), f.History
		if i == 0 {
			cs.Violations = append(cs.Violations, res.Outside...)
		}
		cs.Seconds, cs.ShrinkSeconds, cs.Plans, cs.Flaky, cs.NotMinimal = f.Detect.Seconds(), f.Shrink.Seconds(), f.Plans, f.Flaky, f.NotMinimal
		cs.Bug = f.Bug
		// The bug's own check first, then what else its plan fired, then
		// what its sightings fired beside.
		cs.Checks = ownFirst(f.Check, cs.Violations)
		for _, s := range f.Sightings {
			cs.Sightings = append(cs.Sightings, s.Report())
			for _, id := range s.Checks() {
				if !slices.Contains(cs.Checks, id) {
					cs.Checks = append(cs.Checks, id)
				}
			}
		}
		out = append(out, cs)
	}
	return out
}

// Report is the sighting as the report lists it under its bug's row.
func (s Sighting) Report() report.Sighting {
	return report.Sighting{Check: s.Check, Bug: s.Bug, Checks: s.Checks(), MinimalPlan: s.Plan,
		Violations: s.Violations, NotMinimal: s.NotMinimal, Shared: s.Shared, Why: s.Why}
}

// Statuses says of every check whether the run failed it, passed it, or
// never exercised it (none of the transitions it needs happened), or
// proved nothing of it (an inconclusive run).
func (res *Result) Statuses() map[checks.ID]checks.Status {
	var vs []checks.Violation
	for _, f := range res.Failures {
		vs = append(vs, f.Violations...)
	}
	vs = append(vs, res.Outside...)
	// A check a failure attributed to a reported bug fired failed too: it
	// is never "passed".
	return checks.Statuses(res.Coverage, append(checks.IDsOf(vs), res.AttributedChecks...), res.Verdict == checks.Inconclusive)
}
