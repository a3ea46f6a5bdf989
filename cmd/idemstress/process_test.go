package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/report"
)

// The process target end to end: idemstress starts a throwaway PostgreSQL
// and two replicas of the sample service's binary itself, releases bursts
// across them under the db-stall nemesis, and stops everything it started.
// The in-process mutex holds with one replica and breaks with two.
func TestRunProcessReplicas(t *testing.T) {
	svc := sampleCommand(t)
	for _, tc := range []struct {
		bug      string
		replicas int
		stall    bool
		code     int
		check    string
	}{
		{"", 2, true, exitPass, ""},
		{"process-mutex", 1, false, exitPass, ""},
		// Calls queued on the service's own mutex are invisible to the
		// nemesis, which therefore cannot force the race: honest, not a
		// pass. (Through the database proxy the barrier counts a call it
		// cannot see as held only while the pool could open no more
		// connections; this one's could.)
		{"process-mutex", 1, true, exitInconclusive, ""},
		{"process-mutex", 2, true, exitViolations, "IDEM-001"},
	} {
		t.Run(fmt.Sprintf("%s/%d/stall=%v", tc.bug, tc.replicas, tc.stall), func(t *testing.T) {
			t.Parallel() // replicas, a cluster and ports of its own
			command := `[` + svc + `, "-listen", "127.0.0.1:{port}", "-database-url", "{database_url}"`
			if tc.bug != "" {
				command += `, "-bug", "` + tc.bug + `"`
			}
			yaml := string(ticketsvc.Contract) + "\nprocess:\n  command: " + command + "]\n  replicas: 1\n"
			if tc.stall {
				yaml += "db_stall: tickets\n"
			}
			contract := filepath.Join(t.TempDir(), "contract.yaml")
			if err := os.WriteFile(contract, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			plans := "40"
			if tc.code == exitInconclusive {
				// Bursts that wait out the nemesis are slow; the first of
				// a run may still fire, before the pool has grown.
				plans = "12"
			}
			svcLog := filepath.Join(t.TempDir(), "service.log")
			// What is asserted is the verdict and the replicas, not how
			// small a bug's plan got: a short shrink budget.
			code, stdout, stderr := invoke(t, "run", "--config", contract, "--replicas", strconv.Itoa(tc.replicas),
				"--plans", plans, "--seed", "3", "--json", "--service-log", svcLog, "--shrink-time", "2s")
			// A pass or an inconclusive run is one case; a failing one holds a
			// case per bug, and a duplicate made across replicas may also be
			// seen as a replay answered with the other replica's ID.
			var cases []report.Row
			if err := json.Unmarshal([]byte(stdout), &cases); err != nil || len(cases) == 0 || (tc.check == "" && len(cases) != 1) {
				t.Fatalf("exit %d, %v\n%s%s", code, err, stdout, stderr)
			}
			if code != tc.code || (tc.check != "" && !anyCaseFires(cases, tc.check)) {
				t.Fatalf("exit %d (want %d), verdict %s, checks %v, error %q\n%s", code, tc.code, cases[0].Verdict, cases[0].Checks, cases[0].Error, stderr)
			}
			if !strings.Contains(stderr, fmt.Sprintf("started %d replica(s)", tc.replicas)) {
				t.Errorf("stderr does not say the replicas started:\n%s", stderr)
			}
			// --service-log has what every replica wrote, after its name.
			if log, err := os.ReadFile(svcLog); err != nil || !strings.Contains(string(log), fmt.Sprintf("replica %d: ", tc.replicas-1)) {
				t.Errorf("--service-log %s: %v, no line of replica %d:\n%s", svcLog, err, tc.replicas-1, log)
			}
			// The target is what was started, not the template's placeholder.
			if target := cases[0].Target; strings.Contains(target, "8080") || strings.Count(target, "127.0.0.1:") != tc.replicas || !strings.Contains(stderr, strings.Split(target, ",")[0]) {
				t.Errorf("target %q, want the %d replica address(es) started:\n%s", target, tc.replicas, stderr)
			}
		})
	}
}

// anyCaseFires says whether one of the cases' minimal plans fires check.
func anyCaseFires(cases []report.Row, check string) bool {
	for _, c := range cases {
		for _, id := range c.Checks {
			if string(id) == check {
				return true
			}
		}
	}
	return false
}
