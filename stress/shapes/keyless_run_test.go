package shapes_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/stress"
)

// stripeContract reads a Stripe-like API whose key is optional: a call
// without one is a plain create (key_required: false), a changed
// parameter under a used key a 400 idempotency_error.
const stripeContract = `
target:
  url: URL
  headers: {Idempotency-Key: "{{key}}", X-Tenant: "{{tenant}}"}
  id: /id
payload: {note: coffee, amount: 1250}
key_required: false
statuses: {invalid: []}
answers:
  conflict:
    - status: [400]
      equals: {/error/type: idempotency_error}
effects:
  - {table: payments, tenant: tenant, key: idem_key, id: id, fields: {note: /note}}
`

// Under key_required: false plans send keyless calls, each an ordinary
// create counted by its tenant: the correct service passes 100 plans with
// bursts and faults, and one whose keyless calls share one resource, or
// write nothing, is caught by the check that names it.
func TestKeylessCreatesRun(t *testing.T) {
	t.Parallel()
	faults := []model.Fault{model.FaultLoseReply, model.FaultDoubleDelivery}
	for _, tc := range []struct {
		bug     string
		want    checks.ID
		minimal []model.Step
	}{
		{bug: ""},
		{bug: "keyless-shared", want: checks.UnstableResponse, minimal: []model.Step{keylessCall("A"), keylessCall("A")}},
		{bug: "keyless-no-rows", want: checks.MissingEffect, minimal: []model.Step{keylessCall("A")}},
	} {
		t.Run("bug="+tc.bug, func(t *testing.T) {
			url, dbURL := serveAPI(t, stripeStyle, tc.bug)
			cfg := apiConfig(t, stripeContract, url, dbURL, 100)
			cfg.Faults = faults
			cfg.MaxBugs, cfg.ShrinkTime = 1, time.Minute
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Coverage[coverage.KeylessCreate]; got == 0 {
				t.Errorf("coverage counts no keyless create: %v", res.Coverage)
			}
			if tc.want == "" {
				if res.Verdict != checks.Pass {
					logFailures(t, res)
					t.Fatalf("correct Stripe-like service: %s (%v); want pass", res.Verdict, res.Err)
				}
				assertAllFired(t, res, faults)
				return
			}
			if res.Verdict != checks.Fail || len(res.Failures) != 1 || res.Failures[0].Check != tc.want {
				logFailures(t, res)
				t.Fatalf("Stripe-like service with %s: %s (%v, %d failures); want %s", tc.bug, res.Verdict, res.Err, len(res.Failures), tc.want)
			}
			if got := skeleton(res.Failures[0].Plan); got.String() != (model.Plan{Steps: tc.minimal}).String() {
				t.Errorf("minimal plan:\n%swant:\n%s", got, model.Plan{Steps: tc.minimal})
			}
		})
	}
}

// keylessCall is a single call of tenant without its key.
func keylessCall(tenant string) model.Step {
	return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: tenant, NoKey: true}}}
}
