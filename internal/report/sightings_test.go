package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

// oneRootCause is the query-in-key service's one row: its duplicate, with
// its changed payload accepted listed under it, and the run's contract
// error after it.
func oneRootCause() report.Row {
	plain, queried := model.Call{Tenant: "A", Key: "k1"}, model.Call{Tenant: "A", Key: "k1", Noise: model.NoiseQuery}
	plan := model.Plan{Steps: []model.Step{step(plain), step(queried)}}
	changed := queried
	changed.Variant = 1
	dup := checks.Violation{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: an action has more than 1 row(s) in tickets",
		Detail: "action A/k1: 2 row(s) in tickets"}
	accepted := checks.Violation{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted: a call with another payload was answered ok",
		Detail: "action A/k1: variant 1 answered 201"}
	return report.Row{Target: "query-in-key", Verdict: checks.Fail, Checks: []checks.ID{checks.DuplicateEffect, checks.ChangedAccepted},
		MinimalSteps: 2, MinimalCalls: 2, MinimalPlan: &plan, Seconds: 0.1, Plans: 2, Seed: 1, Violations: []checks.Violation{dup},
		Bug: "IDEM-001 duplicate effect: an action has more than 1 row(s) in tickets in sequence",
		Sightings: []report.Sighting{{Check: checks.ChangedAccepted, Bug: "IDEM-004 in sequence", Checks: []checks.ID{checks.ChangedAccepted, checks.DuplicateEffect},
			MinimalPlan: model.Plan{Steps: []model.Step{step(plain), step(changed)}}, Violations: []checks.Violation{dup, accepted}, Shared: []string{"request noise"}}},
		ContractError: "contract error: payload_rules./channel: the service refused variant 2"}
}

// One bug is one row: its sightings are lines under it, in the columns,
// and said again under its explanation; the contract error that ended the
// run is said once, after the bugs it kept.
func TestWriteTableSightings(t *testing.T) {
	var b bytes.Buffer
	second := oneRootCause()
	second.Target, second.Sightings = "query-in-key", nil
	if err := report.WriteTable(&b, []report.Row{oneRootCause(), second}, report.Column{Header: "LAYOUT", Cells: []string{"keys", "keys"}}); err != nil {
		t.Fatal(err)
	}
	golden(t, "sightings.txt", b.Bytes())
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[2], "  also seen as") || strings.Index(lines[2], "IDEM-004,IDEM-001") != strings.Index(lines[1], "IDEM-001,IDEM-004") {
		t.Errorf("the sighting is not a line under its row, in the CHECKS column:\n%s", b.String())
	}
	if n := strings.Count(b.String(), "contract error (exit 2)"); n != 1 {
		t.Errorf("the contract error is said %d times, want once:\n%s", n, b.String())
	}
}

// A check only a sighting fired fails in JUnit, its text naming the bug
// it is seen again; the bug's own text lists the sighting.
func TestWriteJUnitSightings(t *testing.T) {
	row := oneRootCause()
	s := row.Sightings[0]
	var b bytes.Buffer
	err := report.WriteJUnit(&b, report.JUnitRun{Target: "t", Failures: []report.JUnitFailure{
		{Plan: *row.MinimalPlan, History: row.History, Violations: row.Violations, Sightings: row.Sightings},
		{Plan: s.MinimalPlan, Violations: s.Violations, SightingOf: row.Bug},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`<failure message="IDEM-004 changed payload accepted`,
		"the bug IDEM-001 duplicate effect: an action has more than 1 row(s) in tickets in sequence seen another way",
		"also seen as IDEM-004 in sequence, 2 steps: A/k1 v0; A/k1 v1 +query (without the request noise it does not show)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JUnit lacks %q:\n%s", want, out)
		}
	}
}
