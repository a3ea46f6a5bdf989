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
		if f := res.Failure; f != nil {
			t.Errorf("idemstress: %s after %d plan(s) (seed %d)\n%s", f.Violations[0].Message, res.Plans, res.Seed, report.Explain(f.Plan, f.History, f.Violations))
		}
		for _, v := range res.Outside {
			t.Errorf("idemstress: %s (seed %d)\n  %s", v.Message, res.Seed, v.Detail)
		}
	case Inconclusive:
		t.Errorf("idemstress: inconclusive after %d plan(s) (seed %d): %v", res.Plans, res.Seed, res.Err)
	}
	return res
}
