package checks_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPure pins that the checker and the reports judge plain data: no
// database driver, and none of the packages that read, run or reach the
// target, in their dependency graph (internal/model's sub-packages are the
// contract's pure semantics over its data). A check that needs a row reads it from
// model.Snapshot, which package observe fills.
func TestPure(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no go command on PATH: %v", err)
		}
		t.Skip("no go command on PATH to list the dependencies with")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/idemstress/idemstress/checks", "github.com/idemstress/idemstress/internal/report").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/idemstress/idemstress/internal/model":   true,
		"github.com/idemstress/idemstress/internal/linear":  true,
		"github.com/idemstress/idemstress/internal/effects": true,
		"github.com/idemstress/idemstress/checks":           true,
		"github.com/idemstress/idemstress/internal/report":  true,
		"github.com/idemstress/idemstress/internal/redact":  true,
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case strings.Contains(dep, "pgx"), strings.Contains(dep, "pgconn"):
			t.Errorf("checks or report depends on %s: the checker judges plain data (model), it does not read the database", dep)
		case strings.HasPrefix(dep, "github.com/idemstress/idemstress/") && !allowed[dep] && !strings.HasPrefix(dep, "github.com/idemstress/idemstress/internal/model/"):
			t.Errorf("checks or report depends on %s; they may import only model (and its pure sub-packages) and leaf helpers", dep)
		}
	}
}
