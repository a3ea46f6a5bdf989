package procfaults_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The errors: policy end to end, the other way round from
// TestProcessFaultModes' stores-errors row: the mode that replays a
// transient 500 passes a contract that says errors are stored, every
// db-error fired; the correct modes pass the default under each failure
// the proxy deals (a serialization failure, a deadlock, a terminated
// session, a cut connection), each tried; and a failure that cuts a call
// between its two transactions (non-atomic) leaves a ticket without its
// notification, IDEM-002 with the failed call alone, under the first
// failure (any of them shows it).
func TestErrorPolicyRuns(t *testing.T) {
	t.Parallel()
	bin := sampleBinary(t)
	for _, tc := range []struct {
		mode    string
		stored  bool
		check   checks.ID
		minimal []model.Step
	}{
		{mode: "stores-errors", stored: true},
		{mode: sample.Correct},
		{mode: "key-first"},
		{mode: "non-atomic", check: checks.MissingEffect, minimal: []model.Step{failed("A", "k1", "40001")}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), tc.mode, ticketsvc.LayoutKeys)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Faults = []model.Fault{model.FaultDBError}
			cfg.Contract.ErrorsStored = tc.stored
			cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.MaxBugs = 30, 3, time.Minute, 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.check == "" {
				if res.Verdict != checks.Pass {
					for _, f := range res.Failures {
						t.Errorf("%v\n%s%v", f.Violations, f.Plan, f.History)
					}
					t.Fatalf("verdict %s: %v", res.Verdict, res.Err)
				}
				assertAllFired(t, res, cfg.Faults)
				for _, code := range fault.DBErrorCodes {
					if tr := coverage.PointFired(model.FaultDBError, code); res.Coverage[tr] == 0 {
						t.Errorf("%s never fired (coverage %v)", tr, res.Coverage)
					}
				}
				return
			}
			if res.Verdict != checks.Fail || len(res.Failures) == 0 || res.Failures[0].Check != tc.check {
				t.Fatalf("verdict %s (%v %+v), want %s", res.Verdict, res.Err, res.Failures, tc.check)
			}
			if got := skeleton(res.Failures[0].Plan); got.String() != (model.Plan{Steps: tc.minimal}).String() {
				t.Errorf("minimal plan:\n%swant:\n%s", got, model.Plan{Steps: tc.minimal})
			}
		})
	}
}

// failed is a call that db-error fails with the failure code.
func failed(tenant, key, code string) model.Step {
	s := faulted(tenant, key, model.FaultDBError)
	s.Calls[0].Point = code
	return s
}
