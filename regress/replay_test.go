package regress_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// startSample serves the sample service in one mode over a new database
// and returns a run of it under the db-stall nemesis, as the demo runs it.
func startSample(t *testing.T, mode string, plans int, seed uint64) stress.Config {
	t.Helper()
	svc, err := sample.Start(t.Context(), pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	cfg, err := svc.Config(plans, seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBStall = "tickets"
	cfg.ShrinkTime = 5 * time.Second
	return cfg
}

// For every zoo bug, the case file written from a real failing run replays
// as a failure on that bug's service and as a pass on the correct one: the
// file holds what it takes to show the bug again, and nothing that blames a
// correct service.
func TestEveryZooBugReplays(t *testing.T) {
	// The bugs that show in-process; those that need restarts or crashes
	// are the process runs' (stress.TestProcessFaultModes).
	bugs := slices.DeleteFunc(sample.Modes(), func(m string) bool { return sample.Passes(m) || sample.FaultsOnly(m) })
	if testing.Short() {
		bugs = []string{"outbox-on-retry", "check-then-insert"}
	}
	correct := startSample(t, sample.Correct, 1, 1)
	for _, bug := range bugs {
		t.Run(bug, func(t *testing.T) {
			cfg := startSample(t, bug, 100, 1)
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
						cases[0].Name, cases[0].PlanText, tc.target, o.Verdict, o.Attempts, tc.want, o.Fired(), o.Err)
				}
				if len(o.Warnings) > 0 {
					t.Errorf("replay under the same contract warns: %v", o.Warnings)
				}
				if tc.want == checks.Fail && !slices.Contains(o.Fired(), cases[0].Check.ID) {
					t.Errorf("failed replay does not show %s among %v", cases[0].Check.ID, o.Fired())
				}
			}
		})
	}
}

// A case written by hand replays like one found by a run; under a contract
// whose digest differs it still replays, with a warning.
func TestReplayHandWrittenCaseAndDigestWarning(t *testing.T) {
	twice := model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}
	f := &stress.Failure{Plan: model.Plan{Steps: []model.Step{twice, twice}},
		Violations: []checks.Violation{{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: x"}}}
	cfg := startSample(t, "outbox-on-retry", 1, 1)
	c := regress.FromFailure(cfg, 1, f)
	outs, err := regress.Run(t.Context(), cfg, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Verdict != checks.Fail || outs[0].Attempts != 1 || len(outs[0].Warnings) != 0 {
		t.Errorf("outbox-on-retry: %s after %d attempt(s), warnings %v", outs[0].Verdict, outs[0].Attempts, outs[0].Warnings)
	}
	cfg.Contract.Recovery = 7 * time.Second
	outs, err = regress.Run(t.Context(), cfg, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Verdict != checks.Fail || len(outs[0].Warnings) != 1 || !strings.Contains(outs[0].Warnings[0], "digest") {
		t.Errorf("changed contract: %s, warnings %v", outs[0].Verdict, outs[0].Warnings)
	}
}
