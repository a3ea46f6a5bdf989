package stress

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
)

// refusals: and a rule's required: are read, a policy that is none of
// the three is refused naming them, and the world breaks every rule the
// contract can break, or none under refusals: untested.
func TestRefusalsContract(t *testing.T) {
	sample := string(ticketsvc.Contract)
	for _, tc := range []struct {
		extra  string
		policy model.Refusals
		broken int
	}{
		// The sample's rules: /channel's enum, /priority's range, /subject required.
		{"", "", 3},
		{"refusals: not-stored\n", "", 3},
		{"refusals: stored\n", model.RefusalsStored, 3},
		{"refusals: untested\n", model.RefusalsUntested, 0},
	} {
		cfg, err := Parse("contract.yaml", []byte(sample+tc.extra))
		if err != nil {
			t.Fatalf("%q: %v", tc.extra, err)
		}
		if cfg.Contract.Refusals != tc.policy || !cfg.Contract.Fields["/subject"].Required {
			t.Errorf("%q: refusals %q, rules %+v", tc.extra, cfg.Contract.Refusals, cfg.Contract.Fields)
		}
		if err := cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		if cfg.World.Broken != tc.broken {
			t.Errorf("%q: the world breaks %d rules, want %d", tc.extra, cfg.World.Broken, tc.broken)
		}
	}
	_, err := Parse("contract.yaml", []byte(sample+"refusals: replayed\n"))
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), `refusals: "replayed"`) || !strings.Contains(err.Error(), "untested") {
		t.Errorf("bad refusals: %v; want a contract error naming the three policies", err)
	}
	_, err = Parse("contract.yaml", []byte(strings.Replace(sample, "{required: true}", "{requird: true}", 1)))
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "required)") {
		t.Errorf("misspelt required: %v; want the rule's fields listed", err)
	}
}

// A service that takes a call breaking a rule gets a note naming the rule,
// never a failure; a call that breaks it after its action was created is
// the service's business (a changed payload), not a note.
func TestBrokenAcceptedNoted(t *testing.T) {
	cfg, err := Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{cfg: cfg}
	prio := 0
	for i, b := range cfg.Contract.Breakages() {
		if b.Ptr == "/priority" {
			prio = i + 1
		}
	}
	accepted := model.Op{Call: model.Call{Tenant: "A", Key: "k1", Broken: prio}, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}}
	refused := accepted
	refused.Out = model.Outcome{Kind: model.Invalid, Status: 400}
	created := model.Op{Call: model.Call{Tenant: "A", Key: "k1"}, Out: accepted.Out}
	r.noteBrokenAccepted(model.Calls(refused))
	r.noteBrokenAccepted(model.Calls(created, accepted))
	if len(r.notes) != 0 {
		t.Fatalf("notes %q; want none", r.notes)
	}
	r.noteBrokenAccepted(model.Calls(accepted))
	want := "payload_rules./priority: the service accepted a call that breaks the rule {int: {min: 1, max: 5}} (/priority = 0 outside int {min: 1, max: 5}): it answered 201"
	if len(r.notes) != 1 || !strings.HasPrefix(r.notes[0], want) || !strings.Contains(r.notes[0], "refusals: untested") {
		t.Fatalf("notes %q; want one that starts %q", r.notes, want)
	}
}

// A refusal of a broken call is what it asks for, never a refused input
// (the contract finding of refusal.go); a refused variant still is one.
func TestRefusedInputLeavesBrokenCallsOut(t *testing.T) {
	refused := model.Outcome{Kind: model.Invalid, Status: 400}
	variant := model.Op{Call: model.Call{Tenant: "A", Key: "k1", Variant: 1}, Out: refused}
	broken := variant
	broken.Call.Broken = 2
	if !refusedInput(variant) || refusedInput(broken) {
		t.Errorf("refused input: variant %v, broken %v; want true, false", refusedInput(variant), refusedInput(broken))
	}
	cfg, err := Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	// A re-encoded call after a broken one of its action may get the
	// broken one's refusal replayed: that is IDEM-017's, not the contract's.
	r := &runner{cfg: cfg, faults: map[model.Fault]model.FaultCount{}, coverage: model.Coverage{}, unfiredWhy: map[model.Fault]string{}}
	reencoded := model.Op{Call: model.Call{Tenant: "A", Key: "k1", Encoding: 3}, Out: refused}
	r.account(Trial{History: model.Calls(broken, reencoded)})
	if r.clues.refused != nil {
		t.Errorf("a call refused after a broken one of its action was taken for a refused input: %s", r.clues.refused.Call)
	}
	r.account(Trial{History: model.Calls(reencoded)})
	if r.clues.refused == nil {
		t.Errorf("a re-encoding refused alone was not taken for a refused input")
	}
}

// A call that sends another action's unique values is refused on purpose
// (answers.taken); a 4xx that matcher does not take is no refusal of its
// variant's field, which a contract finding would then blame.
func TestRefusedInputLeavesTakenValuesOut(t *testing.T) {
	refused := model.Outcome{Kind: model.Other, Status: 409}
	variant := model.Op{Call: model.Call{Tenant: "A", Key: "k2", Variant: 1}, Out: refused}
	taking := variant
	taking.Call.UniqueOf = "k1"
	if !refusedInput(variant) || refusedInput(taking) {
		t.Errorf("refused input: variant %v, another's unique value %v; want true, false", refusedInput(variant), refusedInput(taking))
	}
}
