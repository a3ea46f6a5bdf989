package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
