package regress_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// serve is the sample in one mode over a database of its own, hunted with
// no db-stall.
func serve(t *testing.T, mode string) stress.Config {
	t.Helper()
	svc, err := sample.Start(t.Context(), pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	cfg, err := svc.Config(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBStall = ""
	return cfg
}

// Issue 30.8: the case a run without a db-stall saves for memory-keys'
// race (its burst of two identical calls duplicates when the second takes
// the key's lock between the first's commit and its remembering the key,
// about once in 300 releases) replayed as "pass 12/12" on the buggy
// service. A race left to timing is now tried until it fails, up to
// TimedAttempts; on the correct service it passes, after the time budget
// with a warning that says how many it tried.
func TestARaceLeftToTimingFailsOnReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a race thousands of times")
	}
	call := model.Call{Tenant: "A", Key: "k1", Encoding: 1}
	f := &stress.Failure{Plan: model.Plan{Steps: []model.Step{{Kind: model.StepBurst, Calls: []model.Call{call, call}}}},
		Violations: []checks.Violation{{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: an action has more than 1 row(s) in notification_outbox"}}}
	buggy := serve(t, "memory-keys")
	c := regress.FromFailure(buggy, 1, f)
	outs, err := regress.Run(t.Context(), buggy, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; o.Verdict != checks.Fail || o.Max != regress.TimedAttempts {
		t.Errorf("memory-keys: %s after %d/%d attempt(s), fired %v, err %v; want a failure", o.Verdict, o.Attempts, o.Max, o.Checks(), o.Err)
	} else {
		t.Logf("memory-keys failed again at try %d of %d", o.Attempts, o.Max)
	}
	// A correct service would run every try; past the time budget (the
	// Config's Duration, a nanosecond here) the replay stops after
	// RacyAttempts and says so.
	correct := serve(t, sample.Correct)
	correct.Duration = time.Nanosecond
	outs, err = regress.Run(t.Context(), correct, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; o.Verdict != checks.Pass || o.Attempts != regress.RacyAttempts || len(o.Warnings) != 1 {
		t.Errorf("correct, out of time: %s after %d/%d attempt(s), warnings %q; want a pass after %d with a warning", o.Verdict, o.Attempts, o.Max, o.Warnings, regress.RacyAttempts)
	}
}
