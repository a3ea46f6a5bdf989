package regress_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// startSample is a run of the sample in one mode over a new database, as
// the demo runs it (stresstest.SampleRun).
func startSample(t *testing.T, mode string, plans int, seed uint64) stress.Config {
	return stresstest.SampleRun(t, cluster, mode, plans, seed)
}

// A case written by hand replays like one found by a run; under a contract
// whose digest differs it still replays, with a warning.
func TestReplayHandWrittenCaseAndDigestWarning(t *testing.T) {
	twice := model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}
	f := &stress.Failure{Plan: model.Plan{Steps: []model.Step{twice, twice}},
		Violations: []checks.Violation{{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: x"}}}
	cfg := startSample(t, "outbox-on-retry", 1, 1)
	c := regress.FromFailure(cfg, 1, f)
	outs, err := regress.Run(t.Context(), cfg, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Verdict != checks.Fail || outs[0].Attempts != 1 || len(outs[0].Warnings) != 0 {
		t.Errorf("outbox-on-retry: %s after %d attempt(s), warnings %v", outs[0].Verdict, outs[0].Attempts, outs[0].Warnings)
	}
	cfg.Contract.Recovery = 7 * time.Second
	outs, err = regress.Run(t.Context(), cfg, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Verdict != checks.Fail || len(outs[0].Warnings) != 1 || !strings.Contains(outs[0].Warnings[0], "digest") {
		t.Errorf("changed contract: %s, warnings %v", outs[0].Verdict, outs[0].Warnings)
	}
}
