package usable

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

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

// A service that takes a call breaking a rule gets a note naming the rule,
// never a failure; a call that breaks it after its action was created is
// the service's business (a changed payload), not a note.
func TestBrokenAcceptedNoted(t *testing.T) {
	cfg, err := contract.Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	prio := 0
	for i, b := range payloads.Breakages(cfg.Contract) {
		if b.Ptr == "/priority" {
			prio = i + 1
		}
	}
	accepted := model.Op{Call: model.Call{Tenant: "A", Key: "k1", Broken: prio}, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}}
	refused := accepted
	refused.Out = model.Outcome{Kind: model.Invalid, Status: 400}
	created := model.Op{Call: model.Call{Tenant: "A", Key: "k1"}, Out: accepted.Out}
	notes = append(notes, BrokenAccepted(cfg.Contract, model.Calls(refused))...)
	notes = append(notes, BrokenAccepted(cfg.Contract, model.Calls(created, accepted))...)
	if len(notes) != 0 {
		t.Fatalf("notes %q; want none", notes)
	}
	notes = BrokenAccepted(cfg.Contract, model.Calls(accepted))
	want := "payload_rules./priority: the service accepted a call that breaks the rule {int: {min: 1, max: 5}} (/priority = 0 outside int {min: 1, max: 5}): it answered 201"
	if len(notes) != 1 || !strings.HasPrefix(notes[0], want) || !strings.Contains(notes[0], "refusals: untested") {
		t.Fatalf("notes %q; want one that starts %q", notes, want)
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
	cfg, err := contract.Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	// A re-encoded call after a broken one of its action may get the
	// broken one's refusal replayed: that is IDEM-017's, not the contract's.
	reencoded := model.Op{Call: model.Call{Tenant: "A", Key: "k1", Encoding: 3}, Out: refused}
	k := Clues{}.Add(cfg.Contract, "ns1-", model.Calls(broken, reencoded))
	if k.refused != nil {
		t.Errorf("a call refused after a broken one of its action was taken for a refused input: %s", k.refused.Call)
	}
	if k = k.Add(cfg.Contract, "ns2-", model.Calls(reencoded)); k.refused == nil {
		t.Errorf("a re-encoding refused alone was not taken for a refused input")
	}
}
