package shapes_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/stress"
)

// squareContract reads Square's answers: 200 for created and replayed,
// 400 for a reused and for a missing key, told apart by errors[0].code.
const squareContract = `
target:
  url: URL
  headers: {Idempotency-Key: "{{key}}", X-Tenant: "{{tenant}}"}
  id: /payment/id
payload: {note: coffee, amount: 1250}
answers:
  conflict:
    - status: [400]
      equals: {/errors/0/code: IDEMPOTENCY_KEY_REUSED}
  invalid:
    - status: [400]
      equals: {/errors/0/code: MISSING_REQUIRED_PARAMETER}
effects:
  - {table: payments, tenant: tenant, key: idem_key, id: id, fields: {note: /note}}
`

// gocardlessContract reads GoCardless's: a replay is a 409 that carries
// the existing payment's ID, and nothing is ever answered in flight.
const gocardlessContract = `
target:
  url: URL
  headers: {Idempotency-Key: "{{key}}", X-Tenant: "{{tenant}}"}
  id: /payments/id
payload: {note: coffee, amount: 1250}
statuses: {in_flight: []}
answers:
  replayed:
    - status: [409]
      equals: {/error/errors/0/reason: idempotent_creation_conflict}
      id: /error/errors/0/links/conflicting_resource_id
effects:
  - {table: payments, tenant: tenant, key: idem_key, id: id, fields: {note: /note}}
`

// graphqlContract reads a GraphQL API's: every answer is 200, a created
// or replayed payment is /data/createPayment with no /errors, a refusal
// names its reason in /errors/0/extensions/code.
const graphqlContract = `
target:
  url: URL
  headers: {Idempotency-Key: "{{key}}", X-Tenant: "{{tenant}}"}
  id: /data/createPayment/id
payload:
  query: "mutation($input: PaymentInput!) { createPayment(input: $input) { id } }"
  variables: {input: {note: coffee, amount: 1250}}
payload_rules: {/query: fixed}
answers:
  created:
    - status: [200]
      present: [/data/createPayment]
      absent: [/errors]
  conflict:
    - status: [200]
      equals: {/errors/0/extensions/code: IDEMPOTENCY_KEY_REUSED}
  invalid:
    - status: [200]
      equals: {/errors/0/extensions/code: MISSING_REQUIRED_PARAMETER}
  server_error:
    - status: [200]
      equals: {/errors/0/extensions/code: INTERNAL_SERVER_ERROR}
effects:
  - {table: payments, tenant: tenant, key: idem_key, id: id, fields: {note: /variables/input/note}}
`

// apiConfig is a contract pointed at a service and its database.
func apiConfig(t *testing.T, contract, url, dbURL string, plans int) stress.Config {
	t.Helper()
	cfg, err := stress.Parse("contract.yaml", []byte(strings.Replace(contract, "URL", url, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.Plans, cfg.Seed = dbURL, plans, 7
	return cfg
}

// A service that answers like Square, GoCardless or a GraphQL API passes when the
// contract's answer matchers say how it answers, and its planted bug is
// still caught by the check that names it.
func TestAnswerMatchersOnOtherAPIs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		style, contract, bug string
		want                 checks.ID
	}{
		{squareStyle, squareContract, "", ""},
		{squareStyle, squareContract, "changed-replayed", checks.ChangedAccepted},
		{gocardlessStyle, gocardlessContract, "", ""},
		{gocardlessStyle, gocardlessContract, "changed-replayed", checks.ChangedAccepted},
		{gocardlessStyle, gocardlessContract, "replay-new-id", checks.UnstableResponse},
		{graphqlStyle, graphqlContract, "", ""},
		{graphqlStyle, graphqlContract, "changed-replayed", checks.ChangedAccepted},
	} {
		t.Run(tc.style+"/"+tc.bug, func(t *testing.T) {
			url, dbURL := serveAPI(t, tc.style, tc.bug)
			cfg := apiConfig(t, tc.contract, url, dbURL, 100)
			cfg.MaxBugs = 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.Verdict != checks.Pass {
					for _, f := range res.Failures {
						t.Logf("%s: %s\n%+v", f.Check, f.Plan, f.History)
					}
					t.Fatalf("correct %s service: %s (%v); want pass", tc.style, res.Verdict, res.Err)
				}
				return
			}
			if res.Verdict != checks.Fail || res.Failures[0].Check != tc.want {
				t.Fatalf("%s service with %s: %s (%v, %d failures); want %s", tc.style, tc.bug, res.Verdict, res.Err, len(res.Failures), tc.want)
			}
		})
	}
}
