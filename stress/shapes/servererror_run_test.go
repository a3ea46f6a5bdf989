package shapes_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/stress"
)

// A GraphQL-like service answers a failed mutation 200 with
// errors[0].extensions.code INTERNAL_SERVER_ERROR. With answers.server_error
// saying so, the correct service passes 100 plans under the faults that
// make its database work fail, lose its reply and deliver a call twice,
// bursts included, every fault firing; the same service that saves the
// failed answer under the key (a middleware caching every answer) is
// caught where the contract says errors are not stored (IDEM-016), with
// the failed call and its retry alone, and one that looks the key up
// before it inserts is caught by a burst of two (IDEM-001).
func TestGraphQLServerErrors(t *testing.T) {
	t.Parallel()
	faults := []model.Fault{model.FaultDBError, model.FaultLoseReply, model.FaultDoubleDelivery}
	for _, tc := range []struct {
		bug     string
		want    checks.ID
		minimal []model.Step
	}{
		{bug: ""},
		{bug: "stores-errors", want: checks.ErrorReplay,
			minimal: []model.Step{faulted("A", "k1", model.FaultDBError), call("A", "k1", 0)}},
		{bug: "check-then-insert", want: checks.DuplicateEffect,
			minimal: []model.Step{burst(call("A", "k1", 0), call("A", "k1", 0))}},
	} {
		t.Run("bug="+tc.bug, func(t *testing.T) {
			url, dbURL := serveAPI(t, graphqlStyle, tc.bug)
			cfg := apiConfig(t, graphqlContract, url, dbURL, 100)
			cfg.Faults = faults
			cfg.MaxBugs, cfg.ShrinkTime = 1, time.Minute
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.Verdict != checks.Pass {
					logFailures(t, res)
					t.Fatalf("correct GraphQL-like service: %s (%v); want pass", res.Verdict, res.Err)
				}
				assertAllFired(t, res, faults)
				return
			}
			if res.Verdict != checks.Fail || len(res.Failures) != 1 || res.Failures[0].Check != tc.want {
				logFailures(t, res)
				t.Fatalf("GraphQL-like service with %s: %s (%v, %d failures); want %s alone", tc.bug, res.Verdict, res.Err, len(res.Failures), tc.want)
			}
			if got := skeleton(res.Failures[0].Plan); got.String() != (model.Plan{Steps: tc.minimal}).String() {
				t.Errorf("minimal plan:\n%swant:\n%s", got, model.Plan{Steps: tc.minimal})
			}
		})
	}
}
