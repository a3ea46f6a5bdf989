package faultrows_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// Issue 27.4: a service whose process exits when db-error ends its
// database session (as two Node services did, "Unhandled 'error' event
// ... Connection terminated unexpectedly") is a finding, IDEM-018, with
// the fault before it and the replica's last output, in one minimal row;
// the replica is started again and the run reaches all its plans, where
// it used to stop as an infrastructure failure with none.
func TestServiceExitIsAFindingAndTheRunGoesOn(t *testing.T) {
	t.Parallel() // beside TestFaultModesOneRowPerBug's runs
	if testing.Short() {
		t.Skip("starts the sample as processes")
	}
	const mode = "exits-on-db-error"
	cfg, err := sample.ProcessConfig([]string{sampleBinary(t)}, pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Plans, cfg.Seed, cfg.ShrinkTime = 20, 3, 30*time.Second
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("the run failed (%v); a service's exit must be a finding, not the run's failure", err)
	}
	if res.Searched != cfg.Plans {
		t.Errorf("the run searched %d plans of %d; want all of them", res.Searched, cfg.Plans)
	}
	if len(res.Failures) != 1 {
		for _, f := range res.Failures {
			t.Logf("row %s: %s", f.Bug, f.Plan.Compact())
		}
		t.Fatalf("%d rows, want one IDEM-018 row (notes %q)", len(res.Failures), res.Notes)
	}
	f := res.Failures[0]
	if f.Check != checks.ReplicaExited || f.Plan.Compact() != "A/k1 v0 [db-error 57P01]" || f.NotMinimal {
		t.Errorf("row %s %q (not minimal %v), want IDEM-018 with the minimal plan A/k1 v0 [db-error 57P01]", f.Check, f.Plan.Compact(), f.NotMinimal)
	}
	v := f.Violations[0]
	t.Logf("row %s: %s\n%s\n%s", f.Check, f.Plan.Compact(), v.Message, v.Detail)
	for _, want := range []string{"after a db-error fault"} {
		if !strings.Contains(v.Message, want) {
			t.Errorf("message %q lacks %q", v.Message, want)
		}
	}
	for _, want := range []string{"db-error 57P01 fired", "exit status 1", "Connection terminated unexpectedly"} {
		if !strings.Contains(v.Detail, want) {
			t.Errorf("detail %q lacks %q (the fault before the exit and the replica's last output)", v.Detail, want)
		}
	}
}
