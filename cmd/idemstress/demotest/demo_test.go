package demotest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/cmd/idemstress/internal/built"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// twoBugs is the target of the demo's row of two bugs at once (cmd/idemstress/demo.go; --modes names it with a +).
const twoBugs = "no-payload-check,global-keys"

// idemstress is the built command (see package built).
func idemstress(t *testing.T) string { return built.Idemstress(t) }

// demo runs the built command's demo with args in a directory of its own
// and env, and returns its exit code, stdout and stderr.
func demo(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(idemstress(t), append([]string{"demo"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// demo --json: the correct service passes, each bug row is caught by its
// own check with a minimal plan, and the exit code says all is as expected.
func TestDemoJSON(t *testing.T) {
	t.Parallel()
	// One row of each kind: a correct mode and a fault-only bug as
	// processes of this binary, an in-process bug, a race, and the row of
	// two bugs (stress.TestSampleModes and stress/procfaults.TestProcessFaultModes catch every
	// zoo bug; the whole demo is for people, and CI runs it). A loaded
	// machine shrinks slowly: the in-process rows get three times the
	// demo's 10 s (a shrink ends at its minimum, so the budget costs a
	// quiet machine nothing, and the assertions below want the minimum).
	// memory-keys gets the demo's own 30 s: its plan has a restart
	// whatever the shrink reached, which is all that is asserted of it,
	// and rapid's half of a larger budget is spent in full on plans that
	// restart (it was 2 minutes, a minute of it in rapid).
	// memory-keys, whose shrink takes longest, runs in a demo of its own
	// beside the other rows.
	//
	// Both demos run as an installed idemstress does (outsideACheckout):
	// from a directory outside any checkout, with no Go toolchain on
	// PATH, the rows run as processes served by the binary itself
	// (idemstress sample-service). It used to build the sample from this
	// module's source and fail with "go.mod file not found".
	for _, rows := range [][]string{{"correct", "outbox-on-retry", "check-then-insert", "no-payload-check+global-keys"}, {"memory-keys"}} {
		t.Run(strings.Join(rows, ","), func(t *testing.T) {
			t.Parallel()
			demoRows(t, rows)
		})
	}
}

// demoRows runs the demo's rows in one demo and checks each row's JSON.
func demoRows(t *testing.T, rows []string) {
	t.Helper()
	code, stdout, stderr := demo(t, outsideACheckout(t), "--json", "--plans", "60", "--shrink-time", "30s", "--modes", strings.Join(rows, ","))
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var cases []map[string]any
	if err := json.Unmarshal([]byte(stdout), &cases); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(cases) != len(rows) {
		t.Fatalf("%d cases, want %d (%s)", len(cases), len(rows), strings.Join(rows, ", "))
	}
	for _, c := range cases {
		if c["as_expected"] != true || c["layout"] != "keys" {
			t.Errorf("case %v: as_expected %v, layout %v", c["target"], c["as_expected"], c["layout"])
		}
		for _, field := range []string{"target", "verdict", "checks", "minimal_steps", "seconds"} {
			if _, ok := c[field]; !ok {
				t.Errorf("case %v lacks %q", c["target"], field)
			}
		}
		mode := c["target"].(string)
		if sample.Passes(mode) {
			if c["verdict"] != "pass" {
				t.Errorf("correct: %v", c)
			}
			continue
		}
		checks := c["checks"].([]any)
		calls := 2.0
		switch {
		case mode == "trimmed-keys":
			calls = 1 // the keys layout stores the trimmed key: one call shows it
		case sample.FaultsOnly(mode):
			// A call, a restart, a call (a crashed call and its restart
			// for non-atomic, whose partial effect needs no retry):
			// stress/procfaults.TestProcessFaultModes asserts the steps with a budget
			// for plans that restart; here, on a loaded machine, a restart
			// must be among them.
			calls = c["minimal_calls"].(float64)
			least := 3.0
			if mode == "non-atomic" {
				least = 2
			}
			if !strings.Contains(fmt.Sprint(c["minimal_plan"]), "restart") || c["minimal_steps"].(float64) < least {
				t.Errorf("%s: minimal plan %v, want a restart among at least %v steps", mode, c["minimal_plan"], least)
			}
		}
		want := []any{string(sample.Expected[mode])}
		if mode == twoBugs {
			want = []any{"IDEM-007", "IDEM-004"} // both bugs, the tenant leak first
		}
		if c["verdict"] != "fail" || len(checks) < len(want) || !slices.Equal(checks[:len(want)], want) || c["minimal_calls"].(float64) != calls {
			t.Errorf("%s: verdict %v checks %v minimal_calls %v", mode, c["verdict"], checks, c["minimal_calls"])
		}
	}
}

// outsideACheckout is the environment of an installed idemstress with no
// Go toolchain: PATH leads nowhere, HOME is empty, and the database is the
// binary's cluster (demo runs in a directory of its own, outside any
// checkout). The demo's rows run as processes must be served by the binary
// itself.
func outsideACheckout(t *testing.T) []string {
	t.Helper()
	return []string{"PATH=/nonexistent", "HOME=" + t.TempDir(), "DATABASE_URL=" + pgtest.Cluster(t, cluster).URL()}
}
