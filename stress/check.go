package stress

import (
	"testing"

	"github.com/idemstress/idemstress/report"
)

// Check runs the property inside a user's test: it fails t with the minimal
// failing plan, its history and its violations, and returns the result.
func Check(t *testing.T, cfg Config) *Result {
	t.Helper()
	res, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("idemstress: %v", err)
	}
	switch res.Verdict {
	case Fail:
		t.Errorf("idemstress: %s after %d plan(s) (seed %d)\n%s", res.Failure.Violations[0].Message, res.Plans, res.Seed, report.Explain(res.Failure.Plan, res.Failure.History, res.Failure.Violations))
	case Inconclusive:
		t.Errorf("idemstress: inconclusive after %d plan(s) (seed %d): %v", res.Plans, res.Seed, res.Err)
	}
	return res
}
