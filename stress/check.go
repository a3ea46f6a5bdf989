package stress

import (
	"fmt"
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
