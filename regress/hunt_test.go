package regress_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/regress"
	"github.com/idemstress/idemstress/stress"
)

// A case records how its run hunted, and an older file without it reads.
func TestCaseRecordsTheHunt(t *testing.T) {
	cfg := contract(t)
	cfg.DBStall = "tickets"
	c := regress.FromFailure(cfg, 1, failure())
	if want := (regress.Hunt{Sync: client.LastByte, DBStall: "tickets"}); c.Hunt == nil || *c.Hunt != want {
		t.Errorf("hunt %+v, want %+v", c.Hunt, want)
	}
	path, err := regress.Write(t.TempDir(), c)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if got, err := regress.Read(path); err != nil || got.Hunt == nil || *got.Hunt != *c.Hunt {
		t.Errorf("read back hunt %+v, %v\n%s", got.Hunt, err, raw)
	}
	c.Hunt = nil
	path, err = regress.Write(t.TempDir(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := regress.Read(path); err != nil || got.Hunt != nil {
		t.Errorf("a case without a hunt reads as %+v, %v", got.Hunt, err)
	}
}

// A case found on two replicas under the db-stall nemesis replays on two
// under it, though the contract it is replayed with starts one and stalls
// nothing (as a snippet's stress.Load gives it): an in-process mutex fails
// again. With its hunt taken away (the user's explicit choice) the
// contract's one replica holds, so the case passes: the hunt made the
// difference.
func TestRunReplaysUnderTheCasesHunt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the sample service and starts processes")
	}
	bin, err := sample.BuildBinary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(ticketsvc.Contract) + "\nprocess:\n  command: [\"" + bin +
		"\", \"-listen\", \"127.0.0.1:{port}\", \"-database-url\", \"{database_url}\", \"-bug\", \"process-mutex\"]\n  replicas: 1\n"
	path := filepath.Join(t.TempDir(), "contract.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := stress.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL = pgtest.NewDatabase(t, cluster)
	burst := model.Step{Kind: model.StepBurst, Calls: []model.Call{{Tenant: "A", Key: "k1"}, {Tenant: "A", Key: "k1"}}}
	f := &stress.Failure{Plan: model.Plan{Steps: []model.Step{burst}},
		Violations: []checks.Violation{{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: x"}}}
	found := cfg
	found.Process = new(*cfg.Process)
	found.Process.Replicas, found.DBStall = 2, "tickets"
	c := regress.FromFailure(found, 1, f)

	outs, err := regress.Run(t.Context(), cfg, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; o.Verdict != checks.Fail || len(o.Warnings) != 0 {
		t.Errorf("under the case's hunt: %s after %d attempt(s), fired %v, warnings %v, err %v", o.Verdict, o.Attempts, o.Checks(), o.Warnings, o.Err)
	}
	c.Hunt = nil
	// No db-stall now: a race left to timing, tried up to TimedAttempts
	// within the Config's Duration; the pass this shows needs no more
	// than the RacyAttempts a nanosecond leaves.
	timed := cfg
	timed.Duration = time.Nanosecond
	outs, err = regress.Run(t.Context(), timed, []regress.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; o.Verdict != checks.Pass {
		t.Errorf("under the contract's one replica: %s, fired %v, err %v; want a pass (else this test shows nothing)", o.Verdict, o.Checks(), o.Err)
	}
	if cfg.Process.Replicas != 1 || cfg.DBStall != "" {
		t.Errorf("Run changed the caller's config: %d replicas, db-stall %q", cfg.Process.Replicas, cfg.DBStall)
	}
}
