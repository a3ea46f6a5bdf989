package shapes_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/stress"
)

// kubeContract reads a Kubernetes-like create: the key is the object's
// name in the body, a second POST of the name is 409 AlreadyExists naming
// it whatever the body (changed_payload: replayed), the ID is the name.
const kubeContract = `
target:
  url: URL/api/v1/namespaces/{{tenant}}/configmaps
  id: /metadata/name
payload:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: "{{key}}"}
  data: {note: coffee}
payload_rules: {/apiVersion: fixed, /kind: fixed}
changed_payload: replayed
statuses: {in_flight: []}
answers:
  created:
    - status: [201]
  replayed:
    - status: [409]
      equals: {/reason: AlreadyExists}
      id: /details/name
  invalid:
    - status: [422]
      equals: {/reason: Invalid}
faults: [lose-reply, drop-request, double-delivery]
effects:
  - {table: configmaps, tenant: namespace, key: name, id: name, fields: {note: /data/note}}
`

// A natural key (the name in the body) under changed_payload: replayed: a
// correct Kubernetes-like service passes 100 plans with every fault firing,
// and each planted way of executing a changed payload is caught, one row.
func TestNaturalNameReplayed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bug  string
		want checks.ID
	}{
		{"", ""},
		{"update-on-changed", checks.FieldsDiffer},
		{"new-on-changed", checks.DuplicateEffect},
	} {
		t.Run("bug="+tc.bug, func(t *testing.T) {
			url, dbURL := serveKube(t, tc.bug)
			cfg, err := stress.Parse("contract.yaml", []byte(strings.Replace(kubeContract, "URL", url, 1)))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DatabaseURL, cfg.Plans, cfg.Seed = dbURL, 100, 7
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.Verdict != checks.Pass || res.Plans != 100 {
					logFailures(t, res)
					t.Fatalf("correct service: %s after %d plans (%v); want a pass after 100", res.Verdict, res.Plans, res.Err)
				}
				assertAllFired(t, res, []model.Fault{model.FaultLoseReply, model.FaultDropRequest, model.FaultDoubleDelivery})
				return
			}
			if res.Verdict != checks.Fail || len(res.Failures) != 1 || res.Failures[0].Check != tc.want {
				logFailures(t, res)
				t.Fatalf("%s: %s (%v), %d rows; want one row, %s", tc.bug, res.Verdict, res.Err, len(res.Failures), tc.want)
			}
			t.Logf("%s caught: %s", tc.bug, res.Failures[0].Plan)
		})
	}
}

// GoCardless answers every later call with the key 409
// idempotent_creation_conflict naming the existing payment, same body or
// not. The payments service that replays a changed payload so (its
// changed-replayed mode, IDEM-004 under the default policy) passes under
// changed_payload: replayed, and its mode that refuses a changed payload
// 422 is then the one outside the contract.
func TestGoCardlessWithoutFingerprint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bug  string
		want checks.ID
	}{
		{"changed-replayed", ""},
		{"", checks.WrongStatus},
	} {
		t.Run("mode="+tc.bug, func(t *testing.T) {
			url, dbURL := serveAPI(t, gocardlessStyle, tc.bug)
			cfg := apiConfig(t, gocardlessContract+"changed_payload: replayed\n", url, dbURL, 100)
			cfg.MaxBugs = 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.Verdict != checks.Pass || res.Plans != 100 {
					logFailures(t, res)
					t.Fatalf("GoCardless-like service: %s after %d plans (%v); want a pass after 100", res.Verdict, res.Plans, res.Err)
				}
				return
			}
			if res.Verdict != checks.Fail || res.Failures[0].Check != tc.want {
				logFailures(t, res)
				t.Fatalf("%s (%v); want %s first", res.Verdict, res.Err, tc.want)
			}
		})
	}
}
