package apitest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// AssertPasses fails t unless the correct service passed with every
// planned fault fired, db-stall among them when the contract sets it, and
// every point or failure dealt tried (no "not tried" in the run's notes).
func AssertPasses(t *testing.T, cfg stress.Config, res *stress.Result) {
	t.Helper()
	if res.Verdict != checks.Pass {
		LogFailures(t, res)
		t.Fatalf("correct service: verdict %s (%v); want a pass", res.Verdict, res.Err)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "(not tried: ") {
			t.Errorf("correct service: %s; want every one tried", n)
		}
	}
	kinds := slices.Clone(cfg.Faults)
	if cfg.DBStall != "" {
		kinds = append(kinds, model.FaultDBStall)
	}
	stresstest.AssertAllFired(t, res, kinds)
}

// BugCase is a planted bug and how it must be reported: one row, of
// check Want, with a minimal plan (skeleton) of Minimal, or of Steps steps
// when the plan cannot be written here (a refused call).
type BugCase struct {
	Bug     string
	Want    checks.ID
	Minimal []model.Step
	Steps   int
}

// AssertCaught fails t unless the run reports the planted bug as exactly
// one row, of the expected check, minimal.
func AssertCaught(t *testing.T, bc BugCase, res *stress.Result) {
	t.Helper()
	if res.Verdict != checks.Fail || len(res.Failures) == 0 {
		t.Fatalf("bug %s: verdict %s (%v); want it caught", bc.Bug, res.Verdict, res.Err)
	}
	if len(res.Failures) != 1 {
		LogFailures(t, res)
		t.Errorf("bug %s: %d rows %v; want one", bc.Bug, len(res.Failures), checksOf(res))
	}
	f := res.Failures[0]
	if f.Check != bc.Want {
		LogFailures(t, res)
		t.Fatalf("bug %s: reported as %s; want %s", bc.Bug, f.Check, bc.Want)
	}
	if f.NotMinimal {
		t.Errorf("bug %s: plan not minimal:\n%s", bc.Bug, f.Plan)
	}
	switch got := stresstest.Skeleton(f.Plan); {
	case bc.Minimal != nil && got.String() != (model.Plan{Steps: bc.Minimal}).String():
		t.Errorf("bug %s: minimal plan:\n%swant:\n%s", bc.Bug, f.Plan, model.Plan{Steps: bc.Minimal})
	case bc.Minimal == nil && len(got.Steps) != bc.Steps:
		t.Errorf("bug %s: minimal plan:\n%swant %d steps", bc.Bug, f.Plan, bc.Steps)
	}
}

func checksOf(res *stress.Result) []checks.ID {
	var ids []checks.ID
	for _, f := range res.Failures {
		ids = append(ids, f.Check)
	}
	return ids
}

// LogFailures shows what a run found, for a test that did not want it.
func LogFailures(t *testing.T, res *stress.Result) {
	t.Helper()
	for _, f := range res.Failures {
		var b bytes.Buffer
		for _, v := range f.Violations {
			fmt.Fprintf(&b, "\n  %s: %s", v.Message, v.Detail)
		}
		t.Logf("%s %s%s", f.Check, strings.TrimSpace(f.Plan.Compact()), b.String())
	}
}
