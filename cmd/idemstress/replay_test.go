package main

import (
	"encoding/xml"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// run --cases writes the failure's case file and timeline, and prints how
// to replay it;
// replay of that file fails on the buggy service and passes on the correct
// one; --junit writes a report CI can read.
func TestRunWritesCasesAndReplayReplaysThem(t *testing.T) {
	t.Parallel()
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
		Suite    struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	// The suite is named by the contract's method and path, not by the
	// service's ephemeral port: the same name every night.
	if err := xml.Unmarshal(raw, &suites); err != nil || suites.Failures == 0 || suites.Suite.Name != "idemstress POST /tickets" {
		t.Errorf("--junit: %v, %d failures, suite %q\n%s", err, suites.Failures, suites.Suite.Name, raw)
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

// A case found with --replicas and --db-stall replays with them: the case
// file records them, so the replay command run prints needs no flags, and
// replay without flags fails again. Flags given to replay override the
// case's: on one replica without the stall the in-process mutex holds and
// the buggy service passes (what a replay that lost the run's settings
// would say). That replay is a race left to timing, tried up to 5000
// times within --duration: a nanosecond stops it after the 12 that every
// replay runs, enough on one replica, whose mutex holds every time.
func TestReplayTakesTheRunsHunt(t *testing.T) {
	t.Parallel()
	svc := sampleCommand(t)
	yaml := string(ticketsvc.Contract) + "\nprocess:\n  command: [" + svc +
		", \"-listen\", \"127.0.0.1:{port}\", \"-database-url\", \"{database_url}\", \"-bug\", \"process-mutex\"]\n  replicas: 1\n"
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(contract, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// One bug is enough to replay: past it, the search's other plans
	// only wait out the stall wherever a burst meets one replica's mutex.
	code, stdout, stderr := invoke(t, "run", "--config", contract, "--replicas", "2", "--db-stall", "tickets",
		"--plans", "40", "--seed", "3", "--shrink-time", "5s", "--max-bugs", "1", "--cases", dir)
	if code != exitViolations {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	if want := " --config " + contract + "\n"; !strings.Contains(stderr, want) {
		t.Errorf("the replay command is not plain %q:\n%s", want, stderr)
	}
	code, stdout, stderr = invoke(t, "replay", dir, "--config", contract)
	if code != exitViolations || !strings.Contains(stdout, "IDEM-001 fired again") {
		t.Errorf("replay as run printed it: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = invoke(t, "replay", dir, "--config", contract, "--replicas", "1", "--db-stall", "", "--duration", "1ns")
	if code != exitPass {
		t.Errorf("replay on one replica: exit %d, want a pass (else this test shows nothing)\n%s%s", code, stdout, stderr)
	}
	// 12 of 5000: --db-stall "" made it a race left to timing, and
	// --duration ended it once the 12 had run, with a warning.
	if !strings.Contains(stdout, " 12/5000 ") || !strings.Contains(stderr, "--duration") {
		t.Errorf("replay on one replica without the stall, --duration 1ns: want 12 of 5000 tries and a warning\n%s%s", stdout, stderr)
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
	t.Parallel()
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

// A timeline written again replaces its page whole: a reader that opened
// it before reads the old page complete, not a truncated one.
func TestTimelineReplacesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "IDEM-004-x.html")
	call := model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}
	f := &stress.Failure{Plan: model.Plan{Steps: []model.Step{call}},
		Violations: []checks.Violation{{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted: x"}}}
	if err := writeTimeline(path, "first", f); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := writeTimeline(path, "second", f); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != string(old) {
		t.Errorf("a reader of the old page read %d bytes, not the %d it opened", len(b), len(old))
	}
}

// The Go test run prints opens the right files from any package
// directory, though run was given relative paths: the snippet names them
// absolutely and says to copy them before committing.
func TestRunSnippetPathsHoldFromAnyDirectory(t *testing.T) {
	buggy, buggyDB := serveSample(t, "no-payload-check", ticketsvc.LayoutKeys)
	raw, err := os.ReadFile(buggy)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("contract.yaml", raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke(t, "run", "--config", "contract.yaml", "--database-url", buggyDB, "--seed", "3", "--shrink-time", "5s",
		"--cases", "cases")
	if code != exitViolations {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "copy both\n// files into testdata/") {
		t.Errorf("the snippet does not say its paths are for this machine:\n%s", stderr)
	}
	for _, call := range []string{`stress.Load("`, `regress.Replay(t, cfg, "`} {
		i := strings.Index(stderr, call)
		if i < 0 {
			t.Fatalf("no %s in the snippet:\n%s", call, stderr)
		}
		path := stderr[i+len(call):]
		path = path[:strings.Index(path, `"`)]
		if _, err := os.Stat(path); !filepath.IsAbs(path) || err != nil {
			t.Errorf("the snippet's %s%s\") does not open from another directory: %v", call, path, err)
		}
	}
}

// A run refused for a flag or contract error still writes its --junit
// file, every check skipped with the reason, as a run that cannot start
// does: CI never reads a stale or missing report. --junit is honoured even
// after the flag that stopped parsing.
func TestRefusedRunWritesJUnit(t *testing.T) {
	dir := t.TempDir()
	contract := filepath.Join(dir, "contract.yaml")
	if err := os.WriteFile(contract, ticketsvc.Contract, 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "junit.xml")
	for _, tc := range []struct {
		args   []string
		reason string
		suite  string
	}{
		{[]string{"--config", filepath.Join(dir, "missing.yaml"), "--junit", junit}, "missing.yaml", "idemstress " + filepath.Join(dir, "missing.yaml")},
		{[]string{"--config", contract, "--replicas", "2", "--junit", junit}, "no process section", "idemstress POST /tickets"},
		{[]string{"--config", contract, "--sync", "bogus", "--junit=" + junit}, "sync mode", "idemstress POST /tickets"},
		{[]string{"--junit", junit, "--config", contract, "--plans", "many"}, "invalid value", "idemstress " + contract},
		{[]string{"--config", contract, "--bogus", "--junit", junit}, "not defined", "idemstress " + contract},
		{[]string{"-junit", junit, "extra"}, "want --config FILE", "idemstress"},
	} {
		if err := os.WriteFile(junit, []byte("stale"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range [][]string{{"run"}, {"stress", "--plans", "1"}} {
			code, _, stderr := invoke(t, append(cmd, tc.args...)...)
			if code != exitUsage {
				t.Errorf("%s %q: exit %d\n%s", cmd[0], tc.args, code, stderr)
			}
			raw, err := os.ReadFile(junit)
			if err != nil {
				t.Fatalf("%s %q: %v", cmd[0], tc.args, err)
			}
			if err := os.WriteFile(junit, []byte("stale"), 0o644); err != nil {
				t.Fatal(err)
			}
			var suites struct {
				Tests   int `xml:"tests,attr"`
				Skipped int `xml:"skipped,attr"`
				Suite   struct {
					Name string `xml:"name,attr"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(raw, &suites); err != nil || suites.Tests == 0 || suites.Skipped != suites.Tests ||
				!strings.Contains(string(raw), tc.reason) || suites.Suite.Name != tc.suite {
				t.Errorf("%s %q: --junit %v, %+v, want every check skipped for %q in suite %q\n%s", cmd[0], tc.args, err, suites, tc.reason, tc.suite, raw)
			}
		}
	}
	// stress refuses a run without an end the same way.
	if code, _, stderr := invoke(t, "stress", "--config", contract, "--junit", junit); code != exitUsage {
		t.Errorf("stress without --plans or --duration: exit %d\n%s", code, stderr)
	}
	if raw, err := os.ReadFile(junit); err != nil || !strings.Contains(string(raw), "needs an end") {
		t.Errorf("stress without --plans or --duration: --junit %v\n%s", err, raw)
	}
	// -h asks for the usage (exit 0): no report.
	if err := os.Remove(junit); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := invoke(t, "run", "--junit", junit, "-h"); code != exitPass {
		t.Errorf("-h: exit %d", code)
	}
	if _, err := os.Stat(junit); err == nil {
		t.Error("-h wrote a JUnit report")
	}
}
