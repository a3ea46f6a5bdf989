package main

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/report"
)

// Coverage is summed over shards, and a check is exercised when any shard
// exercised it: a shard of one tenant does not make the job's tenant-leak
// check "not exercised" when another shard had two.
func TestMergeCoverage(t *testing.T) {
	pass := func(cov model.Coverage) stressReport {
		return stressReport{Verdict: checks.Pass, Target: "svc", Coverage: cov,
			Cases: []report.Case{{Target: "svc", Verdict: checks.Pass, Checks: []checks.ID{}, Coverage: cov}}}
	}
	oneTenant := pass(model.Coverage{model.Called: 10, model.SequentialRetry: 4, model.OtherTenantSameKey: 0})
	twoTenants := pass(model.Coverage{model.Called: 5, model.OtherTenantSameKey: 2})
	alone := merge([]stressReport{oneTenant})
	if alone.CheckStatus[checks.TenantLeak] != checks.NotExercised || alone.CheckStatus[checks.DuplicateEffect] != checks.Passed {
		t.Errorf("one shard of one tenant: %v", alone.CheckStatus)
	}
	both := merge([]stressReport{oneTenant, twoTenants})
	if both.Coverage[model.Called] != 15 || both.Coverage[model.OtherTenantSameKey] != 2 || both.Coverage[model.SequentialRetry] != 4 {
		t.Errorf("summed coverage: %v", both.Coverage)
	}
	if both.CheckStatus[checks.TenantLeak] != checks.Passed || both.CheckStatus[checks.KeysFolded] != checks.NotExercised {
		t.Errorf("merged statuses: %v", both.CheckStatus)
	}
	if c := both.Cases[0]; c.Coverage[model.Called] != 15 || c.CheckStatus[checks.TenantLeak] != checks.Passed {
		t.Errorf("the merged case keeps a shard's coverage: %v %v", c.Coverage, c.CheckStatus)
	}
	// Reports of an idemstress that counted no coverage merge without one.
	if old := merge([]stressReport{pass(nil)}); old.Coverage != nil || old.CheckStatus != nil {
		t.Errorf("reports without coverage: %v %v", old.Coverage, old.CheckStatus)
	}
}
