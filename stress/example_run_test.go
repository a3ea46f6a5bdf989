package stress_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

// The go test example really runs: its contract file starts two replicas of
// the sample service's binary over a throwaway PostgreSQL, with nothing but
// the contract file to say so. A bug mode behind the same contract fails.
func TestGoTestExampleStartsTheService(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the sample service and starts processes and a cluster")
	}
	pgtest.Cluster(t, cluster) // without PostgreSQL, skip before the build
	bin := stresstest.SampleBinary(t)
	t.Setenv("DATABASE_URL", "")
	contract := func(bug string) string {
		command := `["` + bin + `", "-listen", "127.0.0.1:{port}", "-database-url", "{database_url}", "-bug", "` + bug + `"]`
		return string(ticketsvc.Contract) + "\nprocess:\n  command: " + command + "\n  replicas: 2\n"
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(yaml string) {
		if err := os.WriteFile(filepath.Join(dir, "testdata", "contract.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)

	write(contract(""))
	testIdempotency(t)

	write(contract("outbox-on-retry"))
	cfg, err := stress.Load("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The search ends at the first bug: the verdict and its check are
	// what this run shows.
	cfg.Plans, cfg.Seed, cfg.MaxBugs = 50, 3, 1
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || res.Failures[0].Check != "IDEM-001" {
		t.Fatalf("outbox-on-retry behind the same contract: verdict %s, %v", res.Verdict, res.Err)
	}
}
