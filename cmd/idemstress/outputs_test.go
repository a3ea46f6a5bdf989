package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// Every file idemstress writes is written through a symlink, never
// replaced: --junit /dev/stdout must stay the terminal or the pipe. A
// dangling link is refused in one line naming it.
func TestOutputsWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	report, link := filepath.Join(dir, "report.xml"), filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(report, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(report, link); err != nil {
		t.Fatal(err)
	}
	invoke(t, "run", "--config", filepath.Join(dir, "missing.yaml"), "--junit", link)
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--junit replaced the symlink: %v", err)
	}
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), "<testsuite") {
		t.Errorf("the link's target holds %q", b)
	}

	dangling := filepath.Join(dir, "contract.yaml")
	if err := os.Symlink(filepath.Join(dir, "nowhere.yaml"), dangling); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := invoke(t, "init", "--url", "http://127.0.0.1:1/tickets", "--header", "Idempotency-Key: {{key}}", "--payload", `{"subject": "s"}`, "--out", dangling)
	if code != exitUsage || !strings.Contains(stderr, dangling+" is a symlink to a missing file") {
		t.Errorf("init --out on a dangling link: exit %d, stderr %q", code, stderr)
	}
	if info, err := os.Lstat(dangling); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("init --out replaced the dangling symlink: %v", err)
	}
}

// init never calls a URL with a placeholder in its host: every key would
// be a DNS look-up.
func TestInitRefusesATemplateInTheHost(t *testing.T) {
	out := filepath.Join(t.TempDir(), "contract.yaml")
	code, _, stderr := invoke(t, "init", "--url", "http://{{key}}.example.com/tickets", "--header", "X-Tenant: {{tenant}}", "--payload", `{"subject": "s"}`, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "{{key}} in the host") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("init wrote %s", out)
	}
}

// An error quoting a 200 KB contract line is cut: one line of stderr,
// a few KiB, saying how long the line was.
func TestLongErrorLinesAreCut(t *testing.T) {
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	yaml := "target: {url: 'http://127.0.0.1:1/x', id: /id}\nretries: '" + strings.Repeat("x", 200<<10) + "'\n"
	if err := os.WriteFile(contract, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := invoke(t, "run", "--config", contract)
	if code != exitUsage || len(stderr) > 8<<10 || !strings.Contains(stderr, "line cut:") || !strings.Contains(stderr, "retries") {
		t.Errorf("exit %d, %d bytes of stderr: %.300q", code, len(stderr), stderr)
	}
}

// Issue 30.8: a message quoting 200 KB (an error, a violation's detail) is
// cut by one rule wherever idemstress prints or writes it, not on stderr
// only: the table and explanations on stdout, the JSON report (still
// valid JSON), JUnit and case files.
func TestLongMessageLinesAreCutEverywhere(t *testing.T) {
	long := strings.Repeat("é", 100<<10) // 200 KB, two bytes a character
	raw, err := os.ReadFile(filepath.Join("testdata", "merge", "shard0.json"))
	if err != nil {
		t.Fatal(err)
	}
	shard := strings.Replace(string(raw), `"detail": "action B/k1"`, `"detail": "`+long+`"`, 1)
	shard = strings.Replace(shard, `"seconds": 12.5,`, `"seconds": 12.5, "contract_error": "`+long+`",`, 1)
	path := filepath.Join(t.TempDir(), "shard.json")
	if err := os.WriteFile(path, []byte(shard), 0o644); err != nil {
		t.Fatal(err)
	}
	cutOnce := func(what, out string) {
		t.Helper()
		for i, l := range strings.Split(out, "\n") {
			// The cut line, its indentation and, in JUnit, the tag before it.
			if len(l) > model.MaxLine+512 {
				t.Errorf("%s: line %d is %d bytes: %.80q", what, i+1, len(l), l)
			}
		}
		if !strings.Contains(out, " bytes)") || !strings.Contains(out, "… (line cut: 2048") {
			t.Errorf("%s does not say a line was cut: %.300q", what, out)
		}
	}
	_, stdout, _ := invoke(t, "merge", path)
	cutOnce("merge's table", stdout)
	_, stdout, _ = invoke(t, "merge", "--json", path)
	cutOnce("merge's JSON", stdout)
	var rep stressReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || !strings.Contains(rep.ContractError, "line cut") {
		t.Errorf("merge --json: %v, contract error %.80q", err, rep.ContractError)
	}

	// JUnit and the case file of a failure whose detail is that long.
	call := model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}
	f := &stress.Failure{Check: checks.ChangedAccepted, Plan: model.Plan{Steps: []model.Step{call, call}},
		Violations: []checks.Violation{{Check: checks.ChangedAccepted, Message: "IDEM-004 changed payload accepted: x", Detail: long}}}
	var junit bytes.Buffer
	if err := report.WriteJUnit(&junit, report.JUnitRun{Failures: []report.JUnitFailure{{Plan: f.Plan, Violations: f.Violations}}}); err != nil {
		t.Fatal(err)
	}
	cutOnce("JUnit", junit.String())
	cfg, err := stress.Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	casePath, err := regress.Write(t.TempDir(), regress.FromFailure(cfg, 1, f))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(casePath)
	if err != nil {
		t.Fatal(err)
	}
	cutOnce("the case file", string(b))
}
