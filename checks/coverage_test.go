package checks_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// entry is the catalogue entry of id.
func entry(t *testing.T, id checks.ID) checks.Check {
	t.Helper()
	cat := checks.Catalogue()
	i := slices.IndexFunc(cat, func(c checks.Check) bool { return c.ID == id })
	if i < 0 {
		t.Fatalf("%s is not in the catalogue", id)
	}
	return cat[i]
}

// Each check is exercised by a run that made one of its transitions, and
// only by one: a run of one tenant never exercises the tenant-leak check.
func TestCheckExercised(t *testing.T) {
	allCalls := coverage.Coverage{}
	for _, tr := range coverage.CallTransitions {
		allCalls[tr] = 1
	}
	tests := []struct {
		check checks.ID
		by    coverage.Coverage // exercises it
		not   coverage.Coverage // does not
		why   string            // what not says
	}{
		{checks.TenantLeak, coverage.Coverage{coverage.OtherTenantSameKey: 1},
			coverage.Coverage{coverage.Called: 40, coverage.SequentialRetry: 12, coverage.FoldedKey: 3, coverage.Burst: 9},
			"not exercised: no call of another tenant with the same key"},
		{checks.KeysFolded, coverage.Coverage{coverage.FoldedKey: 1}, coverage.Coverage{coverage.Called: 9, coverage.OtherTenantSameKey: 2},
			"not exercised: no key that differs from another only by white space, case or form"},
		{checks.ChangedAccepted, coverage.Coverage{coverage.ChangedPayload: 1}, coverage.Coverage{coverage.Called: 9, coverage.SequentialRetry: 3},
			"not exercised: no call with a changed payload for the same key"},
		{checks.RejectedEffect, coverage.Coverage{coverage.Keyless: 1}, coverage.Coverage{coverage.Called: 9, coverage.SequentialRetry: 3},
			"not exercised: no call with a changed payload for the same key, no call without a key, no calls of one action at once, no call after a refused one of its action (no payload rule to break, or refusals: untested)"},
		{checks.RefusalReplay, coverage.Coverage{coverage.RefusedThenFixed: 1}, coverage.Coverage{coverage.Called: 9, coverage.ChangedPayload: 3},
			"not exercised: no call after a refused one of its action (no payload rule to break, or refusals: untested)"},
		{checks.DuplicateEffect, coverage.Coverage{"double-delivery": 1}, coverage.Coverage{coverage.Called: 9, coverage.Keyless: 3},
			"not exercised: no sequential retry, no call with a changed payload for the same key, no calls of one action at once, no double-delivery fault fired"},
		{checks.EqualRejected, coverage.Coverage{coverage.SequentialRetry: 1}, coverage.Coverage{coverage.Called: 9, coverage.ChangedPayload: 3},
			"not exercised: no sequential retry, no calls of one action at once"},
		// A crash that fired is not enough: its action must be retried.
		{checks.StuckAction, coverage.Coverage{coverage.RecoveredRetry: 1}, coverage.Coverage{coverage.Called: 9, "crash": 2}, "not exercised: no crashed action retried until its key was released or the recovery time had passed"},
		{checks.NotLinearizable, coverage.Coverage{coverage.Burst: 1}, coverage.Coverage{coverage.Called: 9, coverage.SequentialRetry: 3},
			"not exercised: no calls of one action at once"},
		{checks.NoAnswer, coverage.Coverage{coverage.Called: 1}, coverage.Coverage{}, "not exercised: no call"},
		{checks.StrayWrite, coverage.Coverage{}, nil, ""},
		// The checks of sinks: never by calls alone, and under a
		// contract without sinks (no sink transition named) for that reason.
		{checks.PhantomDelivery, coverage.Coverage{coverage.Delivered: 1}, allCalls, "not exercised: the contract declares no sink"},
		{checks.PhantomDelivery, coverage.Coverage{coverage.Delivered: 1}, withSinks(allCalls), "not exercised: no delivery to a sink"},
		{checks.DuplicateDelivery, coverage.Coverage{coverage.SinkRefused: 1}, withSinks(allCalls),
			"not exercised: no delivery a sink refused, no delivery of an action called again"},
		{checks.DuplicateDelivery, coverage.Coverage{coverage.DeliveredCalledAgain: 1}, allCalls, "not exercised: the contract declares no sink"},
		{checks.EventIDChanged, coverage.Coverage{coverage.Redelivered: 1}, withSinks(coverage.Coverage{coverage.Delivered: 9, coverage.SinkRefused: 3}),
			"not exercised: no delivery retried after an at-least-once sink refused it"},
		{checks.LostDelivery, coverage.Coverage{coverage.AwaitedEvent: 1}, withSinks(allCalls), "not exercised: no ok answer under a sink"},
		{checks.LostDelivery, coverage.Coverage{coverage.AwaitedEvent: 1}, allCalls, "not exercised: the contract declares no sink"},
	}
	for _, tc := range tests {
		c := entry(t, tc.check)
		if !c.Exercised(tc.by) || c.Unexercised(tc.by) != "" {
			t.Errorf("%s: %v does not exercise it (%q)", tc.check, tc.by, c.Unexercised(tc.by))
		}
		if tc.not == nil {
			continue
		}
		if c.Exercised(tc.not) {
			t.Errorf("%s: %v exercises it", tc.check, tc.not)
		}
		if got := c.Unexercised(tc.not); got != tc.why {
			t.Errorf("%s: says %q, want %q", tc.check, got, tc.why)
		}
	}
}

// withSinks is cov of a contract with sinks: its sink transitions named,
// at zero where cov does not count them.
func withSinks(cov coverage.Coverage) coverage.Coverage {
	out := coverage.Coverage{}
	for _, t := range coverage.SinkTransitions {
		out[t] = 0
	}
	out.Add(cov)
	return out
}

// Every transition a check needs is one a run can count: a call
// transition, a sink's, or a fault a contract may plan.
func TestNeedsAreTransitions(t *testing.T) {
	for _, c := range checks.Catalogue() {
		for _, tr := range c.Needs {
			// A crash's follow-up is counted where a crash is planned.
			if !slices.Contains(coverage.CallTransitions, tr) && tr != coverage.RecoveredRetry && !slices.Contains(coverage.SinkTransitions, tr) &&
				!slices.ContainsFunc(faultkind.PlannedFaults, func(f model.Fault) bool { return coverage.FaultFired(f) == tr }) {
				t.Errorf("%s needs %q, which no run counts", c.ID, tr)
			}
		}
	}
}

func TestStatuses(t *testing.T) {
	cov := coverage.Coverage{coverage.Called: 10, coverage.SequentialRetry: 4, coverage.ChangedPayload: 2, coverage.Burst: 3, coverage.Keyless: 1}
	got := checks.Statuses(cov, []checks.ID{checks.ChangedAccepted}, false)
	want := map[checks.ID]checks.Status{
		checks.ChangedAccepted: checks.Failed, checks.TenantLeak: checks.NotExercised, checks.KeysFolded: checks.NotExercised,
		checks.StuckAction: checks.NotExercised, checks.DuplicateEffect: checks.Passed, checks.StrayWrite: checks.Passed,
		// A contract without sinks exercises none of their checks.
		checks.PhantomDelivery: checks.NotExercised, checks.DuplicateDelivery: checks.NotExercised,
		checks.EventIDChanged: checks.NotExercised, checks.LostDelivery: checks.NotExercised,
	}
	if len(got) != len(checks.Catalogue()) {
		t.Fatalf("%d statuses for %d checks", len(got), len(checks.Catalogue()))
	}
	for id, s := range want {
		if got[id] != s {
			t.Errorf("%s: %s, want %s", id, got[id], s)
		}
	}
	undecided := checks.Statuses(cov, []checks.ID{checks.ChangedAccepted}, true)
	if undecided[checks.ChangedAccepted] != checks.Failed || undecided[checks.TenantLeak] != checks.Undecided || undecided[checks.DuplicateEffect] != checks.Undecided {
		t.Errorf("inconclusive run: %v", undecided)
	}
}

// docs/outputs.md says what exercises each check, row for row from Needs.
func TestREADMESaysWhatExercisesEachCheck(t *testing.T) {
	readme, err := os.ReadFile("../docs/outputs.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks.Catalogue() {
		by := "every run"
		if c.Needs != nil {
			labels := make([]string, len(c.Needs))
			for i, tr := range c.Needs {
				labels[i] = tr.Label()
			}
			by = strings.Join(labels, " or ")
		}
		row := fmt.Sprintf("  | %s %s | %s |", c.ID, c.Name, by)
		if !strings.Contains(string(readme), row+"\n") {
			t.Errorf("docs/outputs.md lacks the row\n%s", row)
		}
	}
}

// Issue 27.1: a run whose crash fired but whose crashed action was never
// retried until the recovery time decided it says IDEM-012 was not
// exercised (it used to say passed); with the retry it passed.
func TestStuckActionNeedsTheCrashedActionRetried(t *testing.T) {
	c := model.DefaultContract() // recovery: 5s
	crashed := model.Op{Call: model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrash}, Start: 0, End: 100,
		Out: model.Outcome{Kind: model.Unknown, Err: "EOF"}}
	other := model.Op{Step: 2, Call: model.Call{Tenant: "A", Key: "k2"}, Start: 300, End: 310, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}}
	retry := model.Op{Step: 2, Call: model.Call{Tenant: "A", Key: "k1"}, Start: 300, End: 310, Out: model.Outcome{Kind: model.InFlight, Status: 409}}
	late := retry
	late.Start, late.End, late.Out = 100+int64(6*time.Second), 110+int64(6*time.Second), other.Out
	faults := []model.FaultEvent{{Kind: model.FaultCrash, Fired: true, End: 100, Ops: []int{0}}, {Kind: model.FaultRestart, Step: 1, Start: 150, End: 250, Fired: true}}
	for _, tc := range []struct {
		name string
		ops  []model.Op
		want checks.Status
	}{
		{"crash, restart, another action", []model.Op{crashed, other}, checks.NotExercised},
		{"a retry answered in_flight within the recovery time only", []model.Op{crashed, retry}, checks.NotExercised},
		{"a retry followed until past the recovery time", []model.Op{crashed, retry, late}, checks.Passed},
		{"a retry answered ok: the key was released", []model.Op{crashed, late}, checks.Passed},
	} {
		cov := coverage.Exercised(coverage.Exercise{Contract: c, History: model.History{Ops: tc.ops, Faults: faults}})
		if got := checks.Statuses(cov, nil, false)[checks.StuckAction]; got != tc.want {
			t.Errorf("%s: IDEM-012 %s, want %s (coverage %v)", tc.name, got, tc.want, cov)
		}
	}
}
