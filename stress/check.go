package stress

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/report"
)

// Check runs the property inside a user's test: it fails t with the minimal
// failing plan, its history and its violations, and returns the result.
func Check(t *testing.T, cfg Config) *Result {
	t.Helper()
	res, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("idemstress: %v", redact.Error(err))
	}
	switch res.Verdict {
	case checks.Fail:
		if f := res.Failure; f != nil {
			t.Errorf("idemstress: %s after %d plan(s) (seed %d)\n%s", f.Violations[0].Message, res.Plans, res.Seed, report.Explain(f.Plan, f.History, f.Violations))
		}
		for _, v := range res.Outside {
			t.Errorf("idemstress: %s (seed %d)\n  %s", v.Message, res.Seed, v.Detail)
		}
	case checks.Inconclusive:
		t.Errorf("idemstress: inconclusive after %d plan(s) (seed %d): %v", res.Plans, res.Seed, redact.Error(res.Err))
	}
	return res
}

// Case is the result as one row of a report, under the given target name.
func (res *Result) Case(target string) report.Case {
	cs := report.Case{Target: target, Verdict: res.Verdict, Plans: res.Plans, Seed: res.Seed, Checks: []checks.ID{},
		Seconds: res.Total.Seconds(), Violations: res.Outside, Flaky: res.Flaky, Faults: res.Faults}
	if res.Err != nil {
		cs.Error = res.Err.Error()
	}
	if f := res.Failure; f != nil {
		cs.MinimalPlan = &f.Plan
		cs.MinimalSteps, cs.MinimalCalls = len(f.Plan.Steps), f.Plan.NumCalls()
		cs.Violations, cs.History, cs.FaultEvents = append(slices.Clone(f.Violations), res.Outside...), f.History, f.Faults
		cs.Seconds, cs.ShrinkSeconds = res.Detect.Seconds(), (res.Total - res.Detect).Seconds()
	}
	if cs.Violations != nil {
		cs.Checks = checks.Fired(cs.Violations)
	}
	return cs
}
