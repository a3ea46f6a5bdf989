package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// Files given by mistake (an endless device, a huge log) are refused with
// one line and exit 2, not read until memory runs out.
func TestEndlessFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	contract, caseFile := filepath.Join(dir, "contract.yaml"), filepath.Join(dir, "case.json")
	if err := os.WriteFile(contract, []byte("target: {url: 'http://127.0.0.1:1/x', id: /id}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	aCase := `{"version": 2, "check": {"id": "IDEM-001"}, "plan": {"steps": [{"kind": "call", "calls": [{"tenant": "A", "key": "k1"}]}]}}`
	if err := os.WriteFile(caseFile, []byte(aCase), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"merge", []string{"merge", "/dev/zero"}, "/dev/zero: file too large: more than 64 MiB"},
		{"replay", []string{"replay", "/dev/zero", "--config", contract}, "/dev/zero: file too large: more than 16 MiB"},
		{"contract", []string{"replay", caseFile, "--config", "/dev/zero"}, "/dev/zero: file too large: more than 1 MiB"},
		{"openapi", []string{"init", "--openapi", "/dev/zero", "--operation", "createTicket"}, "/dev/zero: file too large: more than 32 MiB"},
		{"openapi FIFO", []string{"init", "--openapi", fifo, "--operation", "createTicket"}, fifo + " is a FIFO with no writer"},
		{"case FIFO", []string{"replay", fifo, "--config", contract}, fifo + " is a FIFO with no writer"},
		{"contract FIFO", []string{"replay", caseFile, "--config", fifo}, fifo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := invoke(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want %d and one line with %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// merge refuses reports that would merge into a lie: a verdict it does not
// know (which ranked as a pass), reports of two targets, the same shard or
// file twice (counts doubled), a check outside the catalogue.
func TestMergeRefusesBadReports(t *testing.T) {
	shard0, err := os.ReadFile("testdata/merge/shard0.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, fromTo ...string) string {
		t.Helper()
		b := string(shard0)
		for i := 0; i < len(fromTo); i += 2 {
			if !strings.Contains(b, fromTo[i]) {
				t.Fatalf("%q is not in shard0.json", fromTo[i])
			}
			b = strings.Replace(b, fromTo[i], fromTo[i+1], 1)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"unknown verdict", []string{write("banana.json", `"verdict": "fail"`, `"verdict": "banana"`)}, `verdict "banana"; want "pass", "fail" or "inconclusive"`},
		{"other target", []string{"testdata/merge/shard0.json", write("other.json", `"0/2"`, `"1/2"`, `"target": "http://127.0.0.1:8080/tickets"`, `"target": "http://127.0.0.1:9090/orders"`)}, "a report of target"},
		{"same file twice", []string{"testdata/merge/shard0.json", "testdata/merge/shard0.json"}, "the same report as testdata/merge/shard0.json"},
		{"same shard twice", []string{"testdata/merge/shard0.json", write("again.json", `"seed": 77`, `"seed": 78`)}, "shard 0/2 is in testdata/merge/shard0.json too"},
		{"unknown check", []string{write("check.json", `"IDEM-007",`, `"IDEM-999",`)}, `check "IDEM-999" is not in the catalogue`},
		{"two jobs", []string{"testdata/merge/shard0.json", write("ways.json", `"0/2"`, `"1/3"`)}, "split"},
		{"unknown check in check_status", []string{write("status.json", `"seed": 77,`, `"seed": 77, "check_status": {"IDEM-001": "failed", "IDEM-999": "passed"},`)}, `check_status: check "IDEM-999" is not in the catalogue`},
		{"unknown status", []string{write("status2.json", `"seed": 77,`, `"seed": 77, "check_status": {"IDEM-002": "fine"},`)}, `check_status: IDEM-002 is "fine"`},
		{"not JSON", []string{write("text.json", "{", "[")}, "not a report of stress --json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, append([]string{"merge"}, tc.files...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, exitUsage, tc.want)
			}
		})
	}
}

// Replicas a shard started itself on loopback differ in their ports only:
// their reports are of one target.
func TestSameTarget(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"http://svc/tickets", "http://svc/tickets", true},
		{"127.0.0.1:4100,127.0.0.1:4101", "127.0.0.1:5200", true},
		{"http://127.0.0.1:8080/tickets", "http://127.0.0.1:9090/tickets", false},
		{"http://svc/tickets", "127.0.0.1:5200", false},
	} {
		if got := sameTarget(tc.a, tc.b); got != tc.want {
			t.Errorf("sameTarget(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// Flags with no meaning are refused before anything runs; they were taken
// for the defaults (--plans -1 ran 100 plans).
func TestAbsurdFlagsAreRefused(t *testing.T) {
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(contract, ticketsvc.Contract, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config", contract, "--plans", "-1"}, "--plans -1: want 0 or more"},
		{[]string{"run", "--config", contract, "--shrink-time", "-5s"}, "--shrink-time -5s: want a positive duration"},
		{[]string{"run", "--config", contract, "--workers", "-2"}, "--workers -2: want 0 or more"},
		{[]string{"run", "--config", contract, "--replicas", "-1"}, "--replicas -1: want 1 to 64"},
		{[]string{"run", "--config", contract, "--replicas", "100000"}, "--replicas 100000: want 1 to 64"},
		{[]string{"run", "--config", contract, "--workers", "5000"}, "--workers 5000: want at most 256"},
		{[]string{"stress", "--config", contract, "--workers", "5000", "--duration", "10s"}, "--workers 5000: want at most 256"},
		{[]string{"run", "--config", contract, "--replicas", "2"}, "--replicas 2: the contract has no process section"},
		{[]string{"run", "--config", contract, "--service-log", "svc.log"}, "--service-log svc.log: the contract has no process section"},
		{[]string{"stress", "--config", contract, "--duration", "-1s"}, "--duration -1s: want a positive duration"},
		{[]string{"stress", "--config", contract, "--plans", "-3", "--duration", "1m"}, "--plans -3: want 0 or more"},
	} {
		t.Run(strings.Join(tc.args[3:], " "), func(t *testing.T) {
			code, _, stderr := invoke(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}
