package zoo_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { stresstest.Main(m, &cluster) }

// startSample is a run of the sample in one mode over a new database, as
// the demo runs it (stresstest.SampleRun).
func startSample(t *testing.T, mode string, plans int, seed uint64) stress.Config {
	return stresstest.SampleRun(t, cluster, mode, plans, seed)
}

// For every zoo bug, the case file written from a real failing run replays
// as a failure on that bug's service and as a pass on the correct one: the
// file holds what it takes to show the bug again, and nothing that blames a
// correct service.
func TestEveryZooBugReplays(t *testing.T) {
	// The bugs that show in-process; those that need restarts or crashes
	// are the process runs' (stress/procfaults.TestProcessFaultModes).
	bugs := slices.DeleteFunc(sample.Modes(), func(m string) bool { return sample.Passes(m) || sample.FaultsOnly(m) })
	if testing.Short() {
		bugs = []string{"outbox-on-retry", "check-then-insert"}
	}
	for _, bug := range bugs {
		t.Run(bug, func(t *testing.T) {
			// A correct service of its own for each bug, so that the bugs
			// run in parallel: a replay's db-stall holds its table.
			t.Parallel()
			correct := startSample(t, sample.Correct, 1, 1)
			cfg := startSample(t, bug, 100, 1)
			// One case file is what this test replays: the search ends at
			// the first bug, not after 100 plans (hang-on-burst's plans each
			// wait out a call timeout: 5 minutes of them).
			cfg.MaxBugs = 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != checks.Fail || len(res.Failures) == 0 {
				t.Fatalf("%s not caught: %s (%v)", bug, res.Verdict, res.Err)
			}
			path, err := regress.Write(t.TempDir(), regress.FromFailure(cfg, res.Seed, res.Failures[0]))
			if err != nil {
				t.Fatal(err)
			}
			cases, err := regress.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := cases[0].Check.ID; got != res.Failures[0].Check {
				t.Fatalf("case file says %s, the run found %s", got, res.Failures[0].Check)
			}
			for _, tc := range []struct {
				target string
				cfg    stress.Config
				want   checks.Verdict
			}{{bug, cfg, checks.Fail}, {sample.Correct, correct, checks.Pass}} {
				outs, err := regress.Run(t.Context(), tc.cfg, cases)
				if err != nil {
					t.Fatal(err)
				}
				o := outs[0]
				if o.Verdict != tc.want {
					t.Errorf("replay of %s (%s) on %s: %s after %d attempt(s), want %s; fired %v, err %v",
						cases[0].Name, cases[0].PlanText, tc.target, o.Verdict, o.Attempts, tc.want, o.Checks(), o.Err)
				}
				if len(o.Warnings) > 0 {
					t.Errorf("replay under the same contract warns: %v", o.Warnings)
				}
				if tc.want == checks.Fail && !slices.Contains(o.Checks(), cases[0].Check.ID) {
					t.Errorf("failed replay does not show %s among %v", cases[0].Check.ID, o.Checks())
				}
			}
		})
	}
}
