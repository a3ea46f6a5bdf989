package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

func step(calls ...model.Call) model.Step { return model.Step{Kind: model.StepCall, Calls: calls} }

func cases() []report.Row {
	plan := model.Plan{Steps: []model.Step{step(model.Call{Tenant: "A", Key: "k1"}), step(model.Call{Tenant: "A", Key: "k1", Encoding: 2})}}
	vs := []checks.Violation{{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: an action has more than 1 row(s) in notification_outbox",
		Detail: "action A/k1: 2 row(s) in notification_outbox"}}
	h := model.History{Ops: []model.Op{
		{Step: 0, Call: plan.Steps[0].Calls[0], Body: []byte(`{"subject":"x"}`), Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
		{Step: 1, Call: plan.Steps[1].Calls[0], Body: []byte(`{ "subject" : "x" }`), Out: model.Outcome{Kind: model.OK, Status: 200, ID: "7"}},
	}}
	return []report.Row{
		{Target: "correct", Verdict: checks.Pass, Checks: []checks.ID{}, Seconds: 0.5, Plans: 100, Seed: 1},
		{Target: "outbox-on-retry", Verdict: checks.Fail, Checks: checks.IDsOf(vs), MinimalSteps: 2, MinimalCalls: 2,
			MinimalPlan: &plan, Seconds: 0.02, Plans: 3, Seed: 1, Violations: vs, History: h},
		{Target: "no-payload-check", Verdict: checks.Pass, Checks: []checks.ID{}, Seconds: 0.4, Plans: 100, Seed: 1},
		{Target: "check-then-insert", Verdict: checks.Fail, Checks: checks.IDsOf(vs), MinimalSteps: 1, MinimalCalls: 2,
			MinimalPlan: &model.Plan{Steps: []model.Step{{Kind: model.StepBurst, Calls: []model.Call{{Tenant: "A", Key: "k1"}, {Tenant: "A", Key: "k1"}}}}},
			Seconds:     0.1, Plans: 2, Seed: 1, Violations: vs, History: h},
		{Target: "dead", Verdict: checks.Inconclusive, Checks: []checks.ID{}, Seconds: 0.1, Plans: 1, Seed: 1, Error: "infrastructure failure: target unreachable"},
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
	if !strings.Contains(b.String(), "1 step: burst A/k1 v0 | A/k1 v0") || strings.Contains(b.String(), "1 steps") {
		t.Errorf("a one-step plan is not said as such:\n%s", b.String())
	}
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
	if got[1]["verdict"] != "fail" || got[1]["checks"].([]any)[0] != "IDEM-001" || got[1]["minimal_steps"].(float64) != 2 {
		t.Errorf("caught case: %v", got[1])
	}
}

// A command's own columns come after TARGET, one cell per case.
func TestWriteTableExtraColumns(t *testing.T) {
	var b bytes.Buffer
	col := report.Column{Header: "LAYOUT", Cells: []string{"keys", "tagged"}}
	if err := report.WriteTable(&b, cases(), col); err != nil {
		t.Fatal(err)
	}
	golden(t, "table_columns.txt", b.Bytes())
}

func TestCompact(t *testing.T) {
	p := model.Plan{Steps: []model.Step{
		step(model.Call{Tenant: "A", Key: "k1"}),
		step(model.Call{Tenant: "B", Key: "k2", Variant: 1, Encoding: 3}, model.Call{Tenant: "B", NoKey: true}),
	}}
	if got, want := p.Compact(), "A/k1 v0; B/k2 v1e3 | B/(no key) v0"; got != want {
		t.Errorf("Compact = %q, want %q", got, want)
	}
}

// A run that passed prints its seed, as a failed one does: the docs tell
// users to repeat a run with the seed the output printed. A table of many
// rows (the demo's) leaves the seeds to --json.
func TestWriteTablePassSeed(t *testing.T) {
	pass := cases()[0]
	pass.Seed = 14464800211049773755
	var one, many bytes.Buffer
	if err := report.WriteTable(&one, []report.Row{pass}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(one.String(), "correct: passed (seed 14464800211049773755)") {
		t.Errorf("a run's pass without its seed:\n%s", one.String())
	}
	if err := report.WriteTable(&many, []report.Row{pass, pass}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(many.String(), "passed (seed") {
		t.Errorf("a table of many rows prints each pass's seed:\n%s", many.String())
	}
}
