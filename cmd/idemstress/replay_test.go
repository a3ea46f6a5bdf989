package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// run --cases writes the failure's case file and timeline, and prints how
// to replay it;
// replay of that file fails on the buggy service and passes on the correct
// one; --junit writes a report CI can read.
func TestRunWritesCasesAndReplayReplaysThem(t *testing.T) {
	buggy, buggyDB := serveSample(t, "no-payload-check", ticketsvc.LayoutKeys)
	correct, correctDB := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	dir := filepath.Join(t.TempDir(), "cases")
	junit := filepath.Join(t.TempDir(), "junit.xml")

	code, stdout, stderr := invoke(t, "run", "--config", buggy, "--database-url", buggyDB, "--seed", "3", "--shrink-time", "5s",
		"--cases", dir, "--junit", junit)
	if code != exitViolations {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "IDEM-004-*.json"))
	if len(files) != 1 {
		t.Fatalf("case files %v in %s\n%s", files, dir, stderr)
	}
	page, err := os.ReadFile(strings.TrimSuffix(files[0], ".json") + ".html")
	if err != nil || !strings.Contains(string(page), `<g class="call`) || !strings.Contains(string(page), "IDEM-004") {
		t.Errorf("timeline beside the case file: %v\n%.300s", err, page)
	}
	for _, want := range []string{"wrote " + files[0], "idemstress replay " + files[0] + " --config " + buggy, "func TestRegression_IDEM_004_", "regress.Replay(t, cfg, "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run's stderr lacks %q:\n%s", want, stderr)
		}
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(raw, &suites); err != nil || suites.Failures == 0 {
		t.Errorf("--junit: %v, %d failures\n%s", err, suites.Failures, raw)
	}

	code, stdout, stderr = invoke(t, "replay", dir, "--config", buggy, "--database-url", buggyDB)
	if code != exitViolations || !strings.Contains(stdout, "fail") || !strings.Contains(stdout, "IDEM-004 fired again") {
		t.Errorf("replay on the buggy service: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = invoke(t, "replay", "--config", correct, "--database-url", correctDB, files[0])
	if code != exitPass || !strings.Contains(stdout, "pass") || strings.Contains(stderr, "warning") {
		t.Errorf("replay on the correct service: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = invoke(t, "replay", "--config", correct, filepath.Join(dir, "missing.json"))
	if code != exitUsage {
		t.Errorf("replay of a missing file: exit %d %s", code, stderr)
	}
}

// What replay prints for a case that passes, pinned: one line per case.
func TestReplayGolden(t *testing.T) {
	correct, correctDB := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := stress.Load(correct)
	if err != nil {
		t.Fatal(err)
	}
	call := func(v int) model.Step {
		return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: v}}}
	}
	f := &stress.Failure{Plan: model.Plan{Steps: []model.Step{call(0), call(1)}},
		Violations: []checks.Violation{{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted: x"}}}
	dir := t.TempDir()
	if _, err := regress.Write(dir, regress.FromFailure(cfg, 1, f)); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke(t, "replay", dir, "--config", correct, "--database-url", correctDB)
	if code != exitPass || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	golden(t, "replay/pass/stdout", stdout)
}
