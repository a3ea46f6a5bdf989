package shapes_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/stress"
)

// computeContract reads a Compute-Engine-like insert: the requestId in the
// query, the original operation for a seen requestId whatever the body,
// and the instance's name unique beside it, another request's reuse of a
// name refused 409 alreadyExists.
const computeContract = `
target:
  url: URL/compute/v1/projects/{{tenant}}/zones/europe-west1-b/instances?requestId={{key}}
  id: /targetId
payload: {name: vm, machineType: e2-small, description: web server}
payload_rules: {/machineType: fixed}
key_required: false
changed_payload: replayed
unique: [/name]
statuses: {in_flight: []}
answers:
  created:
    - status: [200]
      equals: {/kind: "compute#operation"}
  taken:
    - status: [409]
      equals: {/error/errors/0/reason: alreadyExists}
faults: [lose-reply, drop-request, double-delivery]
effects:
  - {table: instances, tenant: project, key: request_id, id: id, fields: {name: /name, description: /description}}
`

// A second unique field: each action sends a name of its own, so a correct
// service with a unique name column passes 100 plans with every fault
// firing, though some calls send another action's name on purpose (and
// are refused, alreadyExists); the same service that does not keep names
// unique, or that refuses a concurrent duplicate its own name
// (TestNameRaceUnderStall), is caught, one row. Without unique: the
// correct service does not pass: every action sends one name, and its
// refusal reads as a refused input (a contract error) or a wrong status.
func TestSecondUniqueField(t *testing.T) {
	t.Parallel() // beside the binary's other tests; name-race runs alone (TestNameRaceUnderStall)
	for _, tc := range []struct {
		name, bug, contract string
		want                checks.ID
	}{
		{"correct", "", computeContract, ""},
		{"names not unique", "names-not-unique", computeContract, checks.WrongStatus},
		{"correct, contract without unique", "", strings.Replace(computeContract, "unique: [/name]\n", "", 1), "not a pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // a service and a database each
			secondUniqueRow(t, tc.bug, tc.contract, tc.want)
		})
	}
}

// The same service that refuses a concurrent duplicate its own name is
// caught, one row. name-race's db-stall holds a table lock and waits for
// the burst's calls at it: a test of its own, not parallel, so it runs
// before the binary's parallel tests start and with none of them (a
// loaded machine once left it inconclusive); the other rows of
// TestSecondUniqueField no longer wait for it, nor the binary for them.
func TestNameRaceUnderStall(t *testing.T) {
	secondUniqueRow(t, "name-race", computeContract, checks.WrongStatus)
}

// secondUniqueRow runs computeContract (or contract, a variant of it)
// against the compute service in mode bug and checks the verdict want:
// "" a pass with every fault fired, "not a pass", or one row of want.
func secondUniqueRow(t *testing.T, bug, contract string, want checks.ID) {
	url, dbURL := serveCompute(t, bug)
	if !strings.Contains(contract, "unique:") {
		// answers.taken needs unique: fields to read.
		contract = contract[:strings.Index(contract, "  taken:")] + contract[strings.Index(contract, "faults:"):]
	}
	cfg, err := stress.Parse("contract.yaml", []byte(strings.Replace(contract, "URL", url, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.Plans, cfg.Seed = dbURL, 100, 7
	if bug == "name-race" {
		// The race is between two indexes inside PostgreSQL: held
		// at the table and released together, a burst's inserts
		// meet there on a loaded machine too.
		cfg.DBStall = "instances"
		// Serial, so every plan counts in the binary's time: seed 7
		// finds the race after about 20 plans, and the 30 after it
		// must fold into its one row (Searched below).
		cfg.Plans = 50
	}
	res, err := stress.Run(t.Context(), cfg)
	if want == "not a pass" {
		if err == nil && res.Verdict == checks.Pass {
			t.Fatalf("a service with unique names passed a contract that does not say so")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if want == "" {
		if res.Verdict != checks.Pass || res.Plans != 100 {
			logFailures(t, res)
			t.Fatalf("correct service: %s after %d plans (%v); want a pass after 100", res.Verdict, res.Plans, res.Err)
		}
		assertAllFired(t, res, []model.Fault{model.FaultLoseReply, model.FaultDropRequest, model.FaultDoubleDelivery})
		if res.Coverage[coverage.TakenValue] == 0 {
			t.Errorf("no call sent another action's name: %v", res.Coverage)
		}
		return
	}
	if res.Verdict != checks.Fail || len(res.Failures) != 1 || res.Failures[0].Check != want {
		logFailures(t, res)
		t.Fatalf("%s: %s (%v), %d rows; want one row, %s", bug, res.Verdict, res.Err, len(res.Failures), want)
	}
	t.Logf("%s: %s %s", bug, res.Failures[0].Violations[0].Message, res.Failures[0].Plan)
	if res.Searched != cfg.Plans {
		t.Errorf("searched %d plans, want all %d: the plans after the bug's row must fold into it", res.Searched, cfg.Plans)
	}
}
