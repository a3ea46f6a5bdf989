package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

func step(calls ...model.Call) model.Step { return model.Step{Kind: model.StepCall, Calls: calls} }

func cases() []report.Case {
	plan := model.Plan{Steps: []model.Step{step(model.Call{Tenant: "A", Key: "k1"}), step(model.Call{Tenant: "A", Key: "k1", Encoding: 2})}}
	vs := []checks.Violation{{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: an action has more than 1 row(s) in notification_outbox",
		Detail: "action A/k1: 2 row(s) in notification_outbox"}}
	h := model.History{
		{Step: 0, Call: plan.Steps[0].Calls[0], Body: []byte(`{"subject":"x"}`), Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
		{Step: 1, Call: plan.Steps[1].Calls[0], Body: []byte(`{ "subject" : "x" }`), Out: model.Outcome{Kind: model.OK, Status: 200, ID: "7"}},
	}
	return []report.Case{
		{Target: "correct", Verdict: "pass", Expected: "pass", Checks: []checks.ID{}, Seconds: 0.5, Plans: 100, Seed: 1},
		{Target: "outbox-on-retry", Verdict: "caught", Expected: "IDEM-001", Checks: checks.Fired(vs), MinimalSteps: 2, MinimalCalls: 2,
			MinimalPlan: &plan, Seconds: 0.02, Plans: 3, Seed: 1, Violations: vs, History: h},
		{Target: "no-payload-check", Verdict: "pass", Expected: "IDEM-004", Checks: []checks.ID{}, Seconds: 0.4, Plans: 100, Seed: 1},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteTable(&b, cases()); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.txt", b.Bytes())
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteJSON(&b, cases()); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		for _, field := range []string{"target", "verdict", "checks", "minimal_steps", "seconds"} {
			if _, ok := c[field]; !ok {
				t.Errorf("%v lacks %s", c["target"], field)
			}
		}
	}
	if got[1]["checks"].([]any)[0] != "IDEM-001" || got[1]["minimal_steps"].(float64) != 2 {
		t.Errorf("caught case: %v", got[1])
	}
}

func TestAsExpected(t *testing.T) {
	cs := cases()
	for i, want := range []bool{true, true, false} {
		if got := cs[i].AsExpected(); got != want {
			t.Errorf("%s: AsExpected %v, want %v", cs[i].Target, got, want)
		}
	}
	caughtByOther := cs[1]
	caughtByOther.Expected = "IDEM-004"
	if caughtByOther.AsExpected() {
		t.Error("a bug caught by another check than expected counts as expected")
	}
}

func TestCompact(t *testing.T) {
	p := model.Plan{Steps: []model.Step{
		step(model.Call{Tenant: "A", Key: "k1"}),
		step(model.Call{Tenant: "B", Key: "k2", Variant: 1, Encoding: 3}, model.Call{Tenant: "B", NoKey: true}),
	}}
	if got, want := report.Compact(p), "A/k1 v0; B/k2 v1e3 | B/(no key) v0"; got != want {
		t.Errorf("Compact = %q, want %q", got, want)
	}
}
