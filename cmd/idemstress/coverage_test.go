package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model/coverage"
)

// A contract whose keys are global puts one tenant in play: no call of
// another tenant ever carries the same key as a separate action, so the
// tenant-leak check is not exercised. run's JUnit skips it with the
// reason, its JSON says so per check, its table names it on the coverage
// line; stress's report carries the same. The service keeps keys
// globally (ticketsvc's global-keys), which that contract calls correct.
func TestRunNotExercised(t *testing.T) {
	t.Parallel()
	contract, db := serveSample(t, "global-keys", ticketsvc.LayoutKeys)
	yaml, err := os.ReadFile(contract)
	if err != nil {
		t.Fatal(err)
	}
	global := strings.Replace(string(yaml), "key_scope: tenant", "key_scope: global", 1)
	if global == string(yaml) {
		t.Fatal("the sample contract has no key_scope: tenant line")
	}
	if err := os.WriteFile(contract, []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, stdout, stderr := invoke(t, "run", "--config", contract, "--database-url", db, "--plans", "30", "--seed", "5", "--json", "--junit", junit)
	var cases []struct {
		Verdict     checks.Verdict              `json:"verdict"`
		Coverage    coverage.Coverage           `json:"coverage"`
		CheckStatus map[checks.ID]checks.Status `json:"check_status"`
	}
	if err := json.Unmarshal([]byte(stdout), &cases); err != nil || code != exitPass || len(cases) != 1 {
		t.Fatalf("exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	c := cases[0]
	if n, ok := c.Coverage[coverage.OtherTenantSameKey]; !ok || n != 0 || c.Coverage[coverage.SequentialRetry] == 0 || c.Coverage[coverage.Called] == 0 {
		t.Errorf("JSON coverage: %v", c.Coverage)
	}
	if c.CheckStatus[checks.TenantLeak] != checks.NotExercised || c.CheckStatus[checks.DuplicateEffect] != checks.Passed {
		t.Errorf("JSON check_status: %v", c.CheckStatus)
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Skipped int `xml:"skipped,attr"`
		Suite   struct {
			Cases []struct {
				Class   string `xml:"classname,attr"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &suites); err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, tc := range suites.Suite.Cases {
		if tc.Failure != nil {
			t.Errorf("%s failed on a service the contract calls correct", tc.Class)
		}
		if tc.Skipped != nil {
			skipped[tc.Class] = tc.Skipped.Message
		}
	}
	if skipped["idemstress.IDEM-007"] != "not exercised: no call of another tenant with the same key" || skipped["idemstress.IDEM-001"] != "" {
		t.Errorf("JUnit skipped %v\n%s", skipped, raw)
	}
	if !strings.Contains(string(raw), `<skipped message="not exercised: no call of another tenant with the same key">`) {
		t.Errorf("JUnit lacks the skipped element as CI reads it:\n%s", raw)
	}

	code, stdout, stderr = invoke(t, "run", "--config", contract, "--database-url", db, "--plans", "10", "--seed", "5")
	if code != exitPass || !strings.Contains(stdout, ": coverage: calls ") || !strings.Contains(stdout, "other tenant same key 0 (IDEM-007 not exercised)") {
		t.Errorf("table: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, stderr = invoke(t, "stress", "--config", contract, "--database-url", db, "--plans", "10", "--seed", "5", "--json")
	var rep stressReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != exitPass {
		t.Fatalf("idemstress: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if rep.Coverage[coverage.Called] != rep.Calls || rep.CheckStatus[checks.TenantLeak] != checks.NotExercised {
		t.Errorf("stress report: %d calls, coverage %v, statuses %v", rep.Calls, rep.Coverage, rep.CheckStatus)
	}
}
