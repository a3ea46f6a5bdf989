package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

// serveSample starts the sample service in one mode and layout and writes
// the layout's contract file, pointed at it, to a file.
func serveSample(t *testing.T, mode string, layout ticketsvc.Layout) (contract, dbURL string) {
	t.Helper()
	dbURL = pgtest.NewDatabase(t, cluster)
	svc, err := sample.Start(t.Context(), dbURL, mode, layout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	file := ticketsvc.Contract
	if layout == ticketsvc.LayoutTagged {
		file = ticketsvc.ContractTagged
	}
	yaml := strings.Replace(string(file), "http://127.0.0.1:8080/tickets", svc.URL, 1)
	contract = filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(contract, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return contract, dbURL
}

func TestRunExitCodes(t *testing.T) {
	correct, correctDB := serveSample(t, sample.Correct, ticketsvc.LayoutKeys)
	buggy, buggyDB := serveSample(t, "outbox-on-retry", ticketsvc.LayoutKeys)

	code, stdout, stderr := invoke(t, "run", "--config", correct, "--database-url", correctDB, "--plans", "30", "--seed", "5")
	if code != exitPass || !strings.Contains(stdout, "pass") {
		t.Errorf("correct service: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, stderr = invoke(t, "run", "--config", buggy, "--database-url", buggyDB, "--json", "--seed", "5")
	if code != exitViolations {
		t.Fatalf("buggy service: exit %d\n%s%s", code, stdout, stderr)
	}
	var cases []report.Row
	if err := json.Unmarshal([]byte(stdout), &cases); err != nil {
		t.Fatalf("run --json: %v\n%s", err, stdout)
	}
	if len(cases) != 1 || cases[0].Verdict != "fail" || cases[0].Checks[0] != "IDEM-001" || cases[0].MinimalCalls != 2 {
		t.Errorf("run --json: %+v", cases)
	}

	t.Setenv("DATABASE_URL", "")
	code, _, stderr = invoke(t, "run", "--config", correct)
	if code != exitUsage || !strings.Contains(stderr, "--database-url") {
		t.Errorf("no database: exit %d, %q", code, stderr)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	code, _, stderr = invoke(t, "run", "--config", correct, "--database-url", "postgres://postgres@"+closed+"/postgres?connect_timeout=5")
	if code != exitInconclusive || !strings.Contains(stderr, "database unreachable") {
		t.Errorf("unreachable database: exit %d, %q", code, stderr)
	}

	code, _, stderr = invoke(t, "run", "--config", correct, "--database-url", "mysql://nope")
	if code != exitUsage {
		t.Errorf("bad database URL: exit %d, %q", code, stderr)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	yaml, _ := os.ReadFile(correct)
	if err := os.WriteFile(bad, []byte(strings.Replace(string(yaml), "key: request_key", "key: idempotency_key", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = invoke(t, "run", "--config", bad, "--database-url", correctDB)
	if code != exitUsage || !strings.Contains(stderr, `column "idempotency_key" not found`) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("unknown column: exit %d, %q", code, stderr)
	}

	if err := os.WriteFile(bad, []byte(strings.Replace(string(yaml), "per_action: 1", "per_action: lots", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = invoke(t, "run", "--config", bad, "--database-url", correctDB)
	if code != exitUsage || !strings.Contains(stderr, "bad.yaml") || !strings.Contains(stderr, "per_action: lots") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("wrong type: exit %d, %q", code, stderr)
	}

	if err := os.WriteFile(bad, []byte("target: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = invoke(t, "run", "--config", bad, "--database-url", correctDB)
	if code != exitUsage || !strings.Contains(stderr, "bad.yaml") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("malformed YAML: exit %d, %q", code, stderr)
	}

	deadTarget := filepath.Join(t.TempDir(), "dead.yaml")
	if err := os.WriteFile(deadTarget, []byte(strings.Replace(string(ticketsvc.Contract), "127.0.0.1:8080", closed, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = invoke(t, "run", "--config", deadTarget, "--database-url", correctDB)
	if code != exitInconclusive || !strings.Contains(stdout, "inconclusive") || !strings.Contains(stdout, "unreachable") {
		t.Errorf("unreachable target: exit %d\n%s%s", code, stdout, stderr)
	}
}

// run --config with the tagged layout's contract: the key is kept only in
// the service's own table, rows are attributed by the action tag, and still
// every bug is caught by its check and the correct service passes. One bug
// a mode (--max-bugs 1): query-in-key also accepts a changed payload under
// the noisy retry's key, a second, true report beside the duplicate.
func TestRunTaggedContract(t *testing.T) {
	t.Parallel()
	for _, mode := range sample.Modes() {
		if sample.Replicas(mode) > 1 || sample.FaultsOnly(mode) || sample.NeedsRedis(mode) {
			continue // needs replicas, or restarts and crashes: TestRunProcessReplicas, TestDemoJSON
		}
		if mode == "hang-on-burst" {
			continue // each hang waits out the contract file's 10 s timeout: stress/zoo's TestSampleModes
		}
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // a service and a database each
			contract, dbURL := serveSample(t, mode, ticketsvc.LayoutTagged)
			code, stdout, stderr := invoke(t, "run", "--config", contract, "--database-url", dbURL, "--json", "--plans", "60", "--seed", "11",
				"--db-stall", "tickets", "--max-bugs", "1")
			var cases []report.Row
			if err := json.Unmarshal([]byte(stdout), &cases); err != nil || len(cases) != 1 {
				t.Fatalf("exit %d, %v\n%s%s", code, err, stdout, stderr)
			}
			c := cases[0]
			if sample.Passes(mode) {
				if code != exitPass || c.Verdict != "pass" {
					t.Fatalf("correct service: exit %d, %+v", code, c)
				}
				return
			}
			if code != exitViolations || c.Verdict != "fail" || string(c.Checks[0]) != string(sample.Expected[mode]) || c.MinimalCalls != 2 {
				t.Fatalf("%s: exit %d, verdict %s, checks %v, %d calls", mode, code, c.Verdict, c.Checks, c.MinimalCalls)
			}
		})
	}
}
