package apitest

import (
	"os"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/stress"
)

// ContractFile is where a shape's package keeps its contract, as
// docs/apis.md shows it.
const ContractFile = "testdata/contract.yaml"

// DocsBase is the service's address in the contract files (and so in
// docs/apis.md); a run replaces it with its service's.
const DocsBase = "http://127.0.0.1:8080"

// ReadContract is the test's package's contract file.
func ReadContract(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(ContractFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Contract parses a contract with DocsBase replaced by the service's
// base URL, pointed at its database, for plans plans from seed 7. Any
// error fails the test: a field the parser does not know is a contract
// that drifted from the code.
func Contract(t *testing.T, yaml, base, dbURL string, plans int) stress.Config {
	t.Helper()
	cfg, err := stress.Parse(ContractFile, []byte(strings.ReplaceAll(yaml, DocsBase, base)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.Plans, cfg.Seed = dbURL, plans, 7
	return cfg
}

// Run runs cfg and fails the test on an error of the run itself.
func Run(t *testing.T, cfg stress.Config) *stress.Result {
	t.Helper()
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
