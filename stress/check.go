package stress

import (
	"fmt"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/bugid"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/internal/report"
)

// Check runs the property inside a user's test: it fails t with the minimal
// failing plan, its history and its violations, and returns the result.
func Check(t *testing.T, cfg Config) *Result {
	t.Helper()
	// A message may quote 200 KB of the service's output: cut as every
	// message idemstress prints is.
	errorf := func(format string, args ...any) {
		t.Helper()
		t.Error(model.CutLines(fmt.Sprintf(format, args...)))
	}
	res, err := Run(t.Context(), cfg)
	if err != nil && res == nil {
		t.Fatal(model.CutLines(fmt.Sprintf("idemstress: %v", redact.Error(err))))
	}
	if err != nil {
		// A contract error after bugs were found: both are reported.
		errorf("idemstress: %v", redact.Error(err))
	}
	switch res.Verdict {
	case checks.Fail:
		for _, f := range res.Failures {
			v, _ := bugid.ViolationOf(f.Violations, f.Check)
			also := ""
			for _, s := range f.Sightings {
				also += fmt.Sprintf("also seen as %s: %s (%s)\n", s.Bug, s.Plan.Compact(), s.Why)
			}
			errorf("idemstress: %s after %d plan(s) (seed %d)\n%s%s", v.Message, f.Plans, res.Seed, report.Explain(f.Plan, f.History, f.Violations), also)
		}
		for _, v := range res.Outside {
			errorf("idemstress: %s (seed %d)\n  %s", v.Message, res.Seed, v.Detail)
		}
	case checks.Inconclusive:
		errorf("idemstress: inconclusive after %d plan(s) (seed %d): %v", res.Plans, res.Seed, redact.Error(res.Err))
	}
	// What the plans never did, no check of it could judge (go test -v).
	t.Logf("idemstress: %s", report.CoverageLine(res.Coverage, res.Statuses()))
	return res
}

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
