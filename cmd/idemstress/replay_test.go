package main

import (
	"encoding/xml"
	"flag"
	"net"
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

// A case found with --replicas and --db-stall replays with them: run's
// replay command repeats them and replay takes them. Without them the
// in-process mutex holds (one replica) and the buggy service would pass.
func TestReplayTakesTheRunsHuntFlags(t *testing.T) {
	bin := sampleBinary(t)
	yaml := string(ticketsvc.Contract) + "\nprocess:\n  command: [\"" + bin +
		"\", \"-listen\", \"127.0.0.1:{port}\", \"-database-url\", \"{database_url}\", \"-bug\", \"process-mutex\"]\n  replicas: 1\n"
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(contract, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, stdout, stderr := invoke(t, "run", "--config", contract, "--replicas", "2", "--db-stall", "tickets",
		"--plans", "40", "--seed", "3", "--shrink-time", "5s", "--cases", dir)
	if code != exitViolations {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	if want := " --config " + contract + " --replicas 2 --db-stall tickets\n"; !strings.Contains(stderr, want) {
		t.Errorf("the replay command does not repeat the run's flags %q:\n%s", want, stderr)
	}
	code, stdout, stderr = invoke(t, "replay", dir, "--config", contract, "--replicas", "2", "--db-stall", "tickets")
	if code != exitViolations || !strings.Contains(stdout, "IDEM-001 fired again") {
		t.Errorf("replay with the run's flags: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = invoke(t, "replay", dir, "--config", contract)
	if code != exitPass {
		t.Errorf("replay on one replica: exit %d, want a pass (why the flags must be repeated)\n%s%s", code, stdout, stderr)
	}
}

func TestHuntArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--replicas", "2", "--sync", "naive"}, " --replicas 2 --sync naive"},
		{[]string{"--db-stall", ""}, " --db-stall ''"},
		{[]string{"--db-stall", "app.tickets"}, " --db-stall app.tickets"},
		{[]string{"--db-stall", `it's "x"`}, ` --db-stall 'it'\''s "x"'`},
	} {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		var h hunt
		h.register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := h.args(fs); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A run that cannot start still writes its --junit file, every check
// skipped with the reason, so CI never shows a stale or missing report.
func TestRunThatCannotStartWritesJUnit(t *testing.T) {
	correct, _ := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(junit, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := invoke(t, "run", "--config", correct, "--junit", junit,
		"--database-url", "postgres://app:s3cret@"+closed+"/postgres?connect_timeout=5")
	if code != exitInconclusive {
		t.Errorf("unreachable database: exit %d, %q", code, stderr)
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests   int `xml:"tests,attr"`
		Skipped int `xml:"skipped,attr"`
	}
	if err := xml.Unmarshal(raw, &suites); err != nil || suites.Tests == 0 || suites.Skipped != suites.Tests ||
		!strings.Contains(string(raw), "unreachable") || strings.Contains(string(raw), "s3cret") {
		t.Errorf("--junit of a run that could not start: %v, %+v\n%s", err, suites, raw)
	}
}

// A run that found a bug exits 1 even when its case file cannot be
// written (the error is printed); a passing run whose JUnit file cannot be
// written exits 3.
func TestRunArtefactErrorsKeepTheVerdict(t *testing.T) {
	buggy, buggyDB := serveSample(t, "no-payload-check", ticketsvc.LayoutKeys)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := invoke(t, "run", "--config", buggy, "--database-url", buggyDB, "--seed", "3", "--shrink-time", "5s",
		"--cases", notDir)
	if code != exitViolations || !strings.Contains(stderr, "regression case") {
		t.Errorf("bug found, case file not written: exit %d\n%s", code, stderr)
	}
	correct, correctDB := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	code, _, stderr = invoke(t, "run", "--config", correct, "--database-url", correctDB, "--plans", "2",
		"--junit", filepath.Join(notDir, "junit.xml"))
	if code != exitInconclusive || !strings.Contains(stderr, "--junit") {
		t.Errorf("pass, JUnit not written: exit %d\n%s", code, stderr)
	}
}
