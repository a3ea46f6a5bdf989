package main

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/report"
)

// Coverage is summed over shards, and a check is exercised when any shard
// exercised it: a shard of one tenant does not make the job's tenant-leak
// check "not exercised" when another shard had two.
func TestMergeCoverage(t *testing.T) {
	pass := func(cov coverage.Coverage) stressReport {
		return stressReport{Verdict: checks.Pass, Target: "svc", Coverage: cov,
			Cases: []report.Row{{Target: "svc", Verdict: checks.Pass, Checks: []checks.ID{}, Coverage: cov}}}
	}
	oneTenant := pass(coverage.Coverage{coverage.Called: 10, coverage.SequentialRetry: 4, coverage.OtherTenantSameKey: 0})
	twoTenants := pass(coverage.Coverage{coverage.Called: 5, coverage.OtherTenantSameKey: 2})
	alone := merge([]stressReport{oneTenant})
	if alone.CheckStatus[checks.TenantLeak] != checks.NotExercised || alone.CheckStatus[checks.DuplicateEffect] != checks.Passed {
		t.Errorf("one shard of one tenant: %v", alone.CheckStatus)
	}
	both := merge([]stressReport{oneTenant, twoTenants})
	if both.Coverage[coverage.Called] != 15 || both.Coverage[coverage.OtherTenantSameKey] != 2 || both.Coverage[coverage.SequentialRetry] != 4 {
		t.Errorf("summed coverage: %v", both.Coverage)
	}
	if both.CheckStatus[checks.TenantLeak] != checks.Passed || both.CheckStatus[checks.KeysFolded] != checks.NotExercised {
		t.Errorf("merged statuses: %v", both.CheckStatus)
	}
	if c := both.Cases[0]; c.Coverage[coverage.Called] != 15 || c.CheckStatus[checks.TenantLeak] != checks.Passed {
		t.Errorf("the merged case keeps a shard's coverage: %v %v", c.Coverage, c.CheckStatus)
	}
	// Reports of an idemstress that counted no coverage merge without one.
	if old := merge([]stressReport{pass(nil)}); old.Coverage != nil || old.CheckStatus != nil {
		t.Errorf("reports without coverage: %v %v", old.Coverage, old.CheckStatus)
	}
}

// Bugs are merged by what went wrong, not by check: a wrong status in
// sequence and a 500 in a burst are two bugs of IDEM-008 and both stay;
// one bug seen by two shards stays once, with the smaller plan.
func TestMergeKeepsBugsOfOneCheck(t *testing.T) {
	plan := func(calls int) *model.Plan {
		p := &model.Plan{}
		for range calls {
			p.Steps = append(p.Steps, model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}})
		}
		return p
	}
	bug := func(name string, calls int) report.Row {
		return report.Row{Target: "svc", Verdict: checks.Fail, Checks: []checks.ID{checks.WrongStatus}, Bug: name,
			MinimalPlan: plan(calls), MinimalSteps: calls, MinimalCalls: calls}
	}
	shard := func(cases ...report.Row) stressReport {
		return stressReport{Verdict: checks.Fail, Target: "svc", Cases: cases}
	}
	got := merge([]stressReport{
		shard(bug("IDEM-008 in sequence", 3)),
		shard(bug("IDEM-008 in burst (5xx)", 1), bug("IDEM-008 in sequence", 2)),
	})
	if len(got.Cases) != 2 {
		t.Fatalf("%d cases, want the two bugs of IDEM-008: %+v", len(got.Cases), got.Cases)
	}
	for _, c := range got.Cases {
		if c.Bug == "IDEM-008 in sequence" && c.MinimalCalls != 2 {
			t.Errorf("the bug seen by two shards kept %d calls, want the smaller plan's 2", c.MinimalCalls)
		}
	}
	// Reports without bug names (an older idemstress) merge by check.
	old := merge([]stressReport{shard(bug("", 3)), shard(bug("", 2))})
	if len(old.Cases) != 1 || old.Cases[0].MinimalCalls != 2 {
		t.Errorf("reports without bug names: %+v", old.Cases)
	}
}

// A bug one shard lists as a sighting under its row, another shard that
// saw only that sighting reports as its row: merged, one row.
func TestMergeFoldsSightings(t *testing.T) {
	p := &model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}}}
	row := func(bug string, id checks.ID, sightings ...report.Sighting) report.Row {
		return report.Row{Target: "svc", Verdict: checks.Fail, Checks: []checks.ID{id}, Bug: bug, MinimalPlan: p, MinimalSteps: 1, MinimalCalls: 1, Sightings: sightings}
	}
	shard := func(cases ...report.Row) stressReport {
		return stressReport{Verdict: checks.Fail, Target: "svc", Cases: cases}
	}
	got := merge([]stressReport{
		shard(row("IDEM-001 dup in sequence", checks.DuplicateEffect, report.Sighting{Check: checks.ChangedAccepted, Bug: "IDEM-004 in sequence"})),
		shard(row("IDEM-004 in sequence", checks.ChangedAccepted)),
	})
	if len(got.Cases) != 1 || got.Cases[0].Bug != "IDEM-001 dup in sequence" {
		t.Errorf("merged %d cases %+v, want the one row with its sighting", len(got.Cases), got.Cases)
	}
}
