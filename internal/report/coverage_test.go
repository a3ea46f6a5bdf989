package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/report"
)

// oneTenant is what a run of one tenant covers: everything but another
// tenant's key, a folded key and the faults.
var oneTenant = coverage.Coverage{coverage.Called: 300, coverage.SequentialRetry: 120, coverage.ChangedPayload: 80,
	coverage.Keyless: 12, coverage.Reencoding: 50, coverage.Burst: 30}

func TestCoverageLine(t *testing.T) {
	status := checks.Statuses(oneTenant, nil, false)
	got := report.CoverageLine(oneTenant, status)
	want := "coverage: calls 300, sequential retry 120, changed payload 80, other tenant same key 0 (IDEM-007 not exercised), " +
		"keyless 12, re-encoding 50, folded key 0 (IDEM-015 not exercised), burst 30, refused then fixed 0 (IDEM-017 not exercised); " +
		"IDEM-019,IDEM-020,IDEM-021,IDEM-022 not exercised (the contract declares no sink); " +
		"IDEM-016 not exercised (no db-error or dep-error fault fired); IDEM-012 not exercised (no crashed action retried until its key was released or the recovery time had passed)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	all := coverage.Coverage{"crash": 2, "db-error": 1, coverage.RecoveredRetry: 2}
	all.Add(oneTenant)
	all[coverage.OtherTenantSameKey], all[coverage.FoldedKey], all[coverage.RefusedThenFixed] = 7, 3, 4
	all.Add(sinksCoverage)
	got = report.CoverageLine(all, checks.Statuses(all, nil, false))
	if strings.Contains(got, "not exercised") || !strings.HasSuffix(got, ", burst 30, refused then fixed 4, deliveries 9, refused deliveries 3, "+
		"delivery of an action called again 2, retried event 3, ok answer awaiting an event 6, crash 2, db-error 1, retried after a crash 2") {
		t.Errorf("a run that exercised every check: %s", got)
	}
}

// sinksCoverage is a run's under a contract with an at-least-once sink
// whose 500s fired: every check of sinks exercised.
var sinksCoverage = coverage.Coverage{coverage.Delivered: 9, coverage.SinkRefused: 3, coverage.DeliveredCalledAgain: 2, coverage.Redelivered: 3, coverage.AwaitedEvent: 6}

// Under a contract with sinks, a check of sinks whose transition never
// happened is named after its count, like a call transition's.
func TestCoverageLineSinks(t *testing.T) {
	cov := coverage.Coverage{coverage.Called: 5, coverage.Delivered: 0, coverage.SinkRefused: 0, coverage.DeliveredCalledAgain: 0, coverage.Redelivered: 0, coverage.AwaitedEvent: 0}
	got := report.CoverageLine(cov, checks.Statuses(cov, nil, false))
	want := "deliveries 0 (IDEM-019 not exercised), refused deliveries 0, delivery of an action called again 0 (IDEM-020 not exercised), " +
		"retried event 0 (IDEM-021 not exercised), ok answer awaiting an event 0 (IDEM-022 not exercised); "
	if !strings.Contains(got, want) || strings.Contains(got, "declares no sink") {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
}

// JUnit: a check whose transition never happened is skipped with the
// reason, never passed; with the transition it passes.
func TestWriteJUnitNotExercised(t *testing.T) {
	got := junit(t, report.JUnitRun{Target: "svc", Coverage: oneTenant})
	skipped := map[string]string{}
	for _, tc := range got.Suites[0].Cases {
		if tc.Skipped != nil {
			skipped[tc.Class] = tc.Skipped.Message
		}
	}
	want := map[string]string{
		"idemstress.IDEM-007": "not exercised: no call of another tenant with the same key",
		"idemstress.IDEM-015": "not exercised: no key that differs from another only by white space, case or form",
		"idemstress.IDEM-012": "not exercised: no crashed action retried until its key was released or the recovery time had passed",
		"idemstress.IDEM-016": "not exercised: no db-error or dep-error fault fired",
		"idemstress.IDEM-017": "not exercised: no call after a refused one of its action (no payload rule to break, or refusals: untested)",
		"idemstress.IDEM-019": "not exercised: the contract declares no sink",
		"idemstress.IDEM-020": "not exercised: the contract declares no sink",
		"idemstress.IDEM-021": "not exercised: the contract declares no sink",
		"idemstress.IDEM-022": "not exercised: the contract declares no sink",
	}
	if len(skipped) != len(want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	for class, msg := range want {
		if skipped[class] != msg {
			t.Errorf("%s: skipped %q, want %q", class, skipped[class], msg)
		}
	}
	all := coverage.Coverage{coverage.OtherTenantSameKey: 1, coverage.FoldedKey: 1, coverage.RefusedThenFixed: 1, "crash": 1, "db-error": 1, coverage.RecoveredRetry: 1}
	all.Add(oneTenant)
	all.Add(sinksCoverage)
	for _, tc := range junit(t, report.JUnitRun{Target: "svc", Coverage: all}).Suites[0].Cases {
		if tc.Skipped != nil {
			t.Errorf("%s skipped (%s) though exercised", tc.Class, tc.Skipped.Message)
		}
	}
	// A check that fired is failed, exercised or not.
	v := checks.Violation{Check: checks.TenantLeak, Message: "IDEM-007 tenant leak: x"}
	fired := junit(t, report.JUnitRun{Target: "svc", Coverage: oneTenant, Failures: []report.JUnitFailure{{Violations: []checks.Violation{v}}}})
	if tc := fired.Suites[0].Cases[0]; tc.Failure == nil || tc.Skipped != nil {
		t.Errorf("IDEM-007 fired: %+v", tc)
	}
	var b bytes.Buffer
	if err := report.WriteJUnit(&b, report.JUnitRun{Target: "svc", Coverage: oneTenant}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<property name="coverage" value="coverage: calls 300, sequential retry 120`) {
		t.Errorf("no coverage property:\n%s", b.String())
	}
}

// The table says what the run covered, once per run; the JSON carries the
// counts and every check's status.
func TestTableAndJSONCoverage(t *testing.T) {
	status := checks.Statuses(oneTenant, nil, false)
	c := report.Row{Target: "svc", Verdict: checks.Pass, Checks: []checks.ID{}, Coverage: oneTenant, CheckStatus: status}
	var b bytes.Buffer
	if err := report.WriteTable(&b, []report.Row{c, c}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "svc: coverage: calls 300,"); n != 1 {
		t.Errorf("%d coverage lines:\n%s", n, b.String())
	}
	// two bugs of one run with faults: their faults line is said once too
	c.Faults = map[model.Fault]faultkind.FaultCount{model.FaultCrash: {Planned: 3, Fired: 3}}
	b.Reset()
	if err := report.WriteTable(&b, []report.Row{c, c}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "svc: faults fired: crash 3/3"); n != 1 {
		t.Errorf("%d faults lines:\n%s", n, b.String())
	}
	b.Reset()
	if err := report.WriteJSON(&b, []report.Row{c}); err != nil {
		t.Fatal(err)
	}
	var parsed []struct {
		Coverage    map[string]int    `json:"coverage"`
		CheckStatus map[string]string `json:"check_status"`
	}
	if err := json.Unmarshal(b.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	p := parsed[0]
	if p.Coverage["sequential-retry"] != 120 || p.Coverage["other-tenant-same-key"] != 0 || p.CheckStatus["IDEM-007"] != "not exercised" || p.CheckStatus["IDEM-001"] != "passed" {
		t.Errorf("JSON: %s", b.String())
	}
}
