package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/report"
)

// Issue 26.8: a run that ends in a contract error (a generated variant
// the service refuses) keeps the bugs it found before: the JSON has the
// bug's row with the contract error, the table says both, and the run
// exits 2. Before, the JSON held nothing.
func TestContractErrorKeepsTheBugsFound(t *testing.T) {
	t.Parallel()
	contract, db := serveSample(t, "outbox-on-retry", ticketsvc.LayoutKeys)
	yaml, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	// The service takes email and sms only: the variant with fax is refused.
	widened := strings.Replace(string(yaml), "{enum: [email, sms]}", "{enum: [email, fax]}", 1)
	if widened == string(yaml) {
		t.Fatal("the sample contract changed under the test")
	}
	if err := os.WriteFile(contract, []byte(widened), 0o644); err != nil {
		t.Fatal(err)
	}
	// What is asserted is that the bug's row is kept, not how small its
	// plan got: a short shrink budget (a cut shrink still has a plan).
	args := []string{"run", "--config", contract, "--database-url", db, "--seed", "3", "--plans", "40", "--cases", "", "--shrink-time", "2s"}
	code, stdout, stderr := invoke(t, append(args, "--json")...)
	if code != exitUsage {
		t.Fatalf("exit %d, want 2 (a contract error)\n%s%s", code, stdout, stderr)
	}
	var cases []report.Row
	if err := json.Unmarshal([]byte(stdout), &cases); err != nil {
		t.Fatalf("run --json: %v\n%s%s", err, stdout, stderr)
	}
	if len(cases) == 0 || cases[0].Verdict != "fail" || cases[0].Checks[0] != "IDEM-001" || cases[0].MinimalPlan == nil {
		t.Fatalf("run --json holds no row for the bug found: %s", stdout)
	}
	if !strings.Contains(cases[0].ContractError, "payload_rules./channel") || !strings.Contains(stderr, "payload_rules./channel") {
		t.Errorf("the row's contract_error is %q (stderr %q), want the refused /channel", cases[0].ContractError, stderr)
	}
	code, stdout, _ = invoke(t, args...)
	if code != exitUsage || !strings.Contains(stdout, "IDEM-001") || !strings.Contains(stdout, "contract error (exit 2)") {
		t.Errorf("table: exit %d\n%s", code, stdout)
	}
}
