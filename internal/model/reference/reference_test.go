package reference_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
)

func TestJudge(t *testing.T) {
	def := model.DefaultContract()
	bytesEq := model.DefaultContract()
	bytesEq.Equivalence = model.EquivalenceBytes
	keyless := model.DefaultContract()
	keyless.KeylessCreates = true

	tests := []struct {
		name     string
		contract model.Contract
		state    reference.State
		in       reference.Input
		out      model.Outcome
		rule     reference.Rule
		next     []reference.State
	}{
		// The table of DESIGN.md, "The reference model", column by column.
		{"absent: ok creates with the new id", def, absent, reference.Input{Body: p}, ok("7"),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"absent: conflict is no answer for a fresh key", def, absent, reference.Input{Body: p}, answer(model.Conflict),
			reference.RuleWrongStatus, []reference.State{absent}},
		{"equivalent: ok with the same id replays", def, present(p, "7"), reference.Input{Body: p}, ok("7"),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"equivalent re-encoded: ok with the same id replays", def, present(p, "7"), reference.Input{Body: pSpaced}, ok("7"),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"equivalent: ok with another id is unstable", def, present(p, "7"), reference.Input{Body: pSpaced}, ok("8"),
			reference.RuleUnstableID, []reference.State{present(p, "7")}},
		{"equivalent: conflict rejects an equal payload", def, present(p, "7"), reference.Input{Body: pSpaced}, answer(model.Conflict),
			reference.RuleEquivalentRejected, []reference.State{present(p, "7")}},
		{"changed: conflict", def, present(p, "7"), reference.Input{Body: pOther}, answer(model.Conflict),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"changed: ok accepts a changed payload", def, present(p, "7"), reference.Input{Body: pOther}, ok("7"),
			reference.RuleChangedPayloadAccepted, []reference.State{present(p, "7")}},

		// A state created by an unknown call has no ID yet: the next ok tells it.
		{"created unheard: equivalent ok binds the id", def, present(p, ""), reference.Input{Body: pSpaced}, ok("9"),
			reference.RuleHolds, []reference.State{present(p, "9")}},
		{"created unheard: changed ok", def, present(p, ""), reference.Input{Body: pOther}, ok("9"),
			reference.RuleChangedPayloadAccepted, []reference.State{present(p, "")}},
		{"created unheard: changed conflict", def, present(p, ""), reference.Input{Body: pOther}, answer(model.Conflict),
			reference.RuleHolds, []reference.State{present(p, "")}},

		// in_flight only while another call of the action overlaps.
		{"in_flight overlapping, absent", def, absent, reference.Input{Body: p, Overlapped: true}, answer(model.InFlight),
			reference.RuleHolds, []reference.State{absent}},
		{"in_flight overlapping, present", def, present(p, "7"), reference.Input{Body: pOther, Overlapped: true}, answer(model.InFlight),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"in_flight alone, absent", def, absent, reference.Input{Body: p}, answer(model.InFlight),
			reference.RuleWrongStatus, []reference.State{absent}},
		{"in_flight alone, present", def, present(p, "7"), reference.Input{Body: p}, answer(model.InFlight),
			reference.RuleWrongStatus, []reference.State{present(p, "7")}},

		{"invalid with a key, absent", def, absent, reference.Input{Body: p}, answer(model.Invalid),
			reference.RuleWrongStatus, []reference.State{absent}},
		{"invalid with a key, present", def, present(p, "7"), reference.Input{Body: p}, answer(model.Invalid),
			reference.RuleWrongStatus, []reference.State{present(p, "7")}},

		// Keyless calls never touch the action's state.
		{"keyless invalid", def, absent, reference.Input{Body: p, NoKey: true}, answer(model.Invalid),
			reference.RuleHolds, []reference.State{absent}},
		{"keyless unknown does not fork", def, absent, reference.Input{Body: p, NoKey: true}, answer(model.Unknown),
			reference.RuleHolds, []reference.State{absent}},
		{"keyless ok", def, absent, reference.Input{Body: p, NoKey: true}, ok("7"),
			reference.RuleWrongStatus, []reference.State{absent}},
		{"keyless ok on a present action", def, present(p, "7"), reference.Input{Body: p, NoKey: true}, ok("7"),
			reference.RuleWrongStatus, []reference.State{present(p, "7")}},
		{"keyless conflict", def, present(p, "7"), reference.Input{Body: pOther, NoKey: true}, answer(model.Conflict),
			reference.RuleWrongStatus, []reference.State{present(p, "7")}},
		{"keyless in_flight, even overlapping", def, absent, reference.Input{Body: p, NoKey: true, Overlapped: true}, answer(model.InFlight),
			reference.RuleWrongStatus, []reference.State{absent}},
		{"keyless other", def, absent, reference.Input{Body: p, NoKey: true}, answer(model.Other),
			reference.RuleWrongStatus, []reference.State{absent}},

		// key_required: false: a keyless call is an ordinary create of its
		// own, ok on any state of the keyed action, which it never touches.
		{"keyless create ok", keyless, absent, reference.Input{Body: p, NoKey: true}, ok("7"),
			reference.RuleHolds, []reference.State{absent}},
		{"keyless create ok beside a present action", keyless, present(p, "7"), reference.Input{Body: p, NoKey: true}, ok("8"),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"keyless create unknown", keyless, absent, reference.Input{Body: p, NoKey: true}, answer(model.Unknown),
			reference.RuleHolds, []reference.State{absent}},
		{"keyless create invalid", keyless, absent, reference.Input{Body: p, NoKey: true}, answer(model.Invalid),
			reference.RuleWrongStatus, []reference.State{absent}},
		{"keyless create conflict", keyless, present(p, "7"), reference.Input{Body: pOther, NoKey: true}, answer(model.Conflict),
			reference.RuleWrongStatus, []reference.State{present(p, "7")}},
		{"keyless create in_flight", keyless, absent, reference.Input{Body: p, NoKey: true, Overlapped: true}, answer(model.InFlight),
			reference.RuleWrongStatus, []reference.State{absent}},

		// Unknown and other may or may not have created the action.
		{"unknown forks an absent action", def, absent, reference.Input{Body: p}, answer(model.Unknown),
			reference.RuleHolds, []reference.State{absent, present(p, "")}},
		{"unknown leaves a present action", def, present(p, "7"), reference.Input{Body: pOther}, answer(model.Unknown),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"other forks an absent action", def, absent, reference.Input{Body: p}, model.Outcome{Kind: model.Other, Status: 404},
			reference.RuleWrongStatus, []reference.State{absent, present(p, "")}},
		{"other leaves a present action", def, present(p, "7"), reference.Input{Body: p}, model.Outcome{Kind: model.Other, Status: 200},
			reference.RuleWrongStatus, []reference.State{present(p, "7")}},

		// Byte equivalence: a re-encoding is a changed payload.
		{"bytes: re-encoded ok is a changed payload", bytesEq, present(p, "7"), reference.Input{Body: pSpaced}, ok("7"),
			reference.RuleChangedPayloadAccepted, []reference.State{present(p, "7")}},
		{"bytes: re-encoded conflict holds", bytesEq, present(p, "7"), reference.Input{Body: pSpaced}, answer(model.Conflict),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"bytes: identical ok replays", bytesEq, present(p, "7"), reference.Input{Body: []byte(`{"subject":"a"}`)}, ok("7"),
			reference.RuleHolds, []reference.State{present(p, "7")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule, next := reference.Judge(tt.contract, tt.state, tt.in, tt.out)
			if rule != tt.rule {
				t.Errorf("rule = %d, want %d", rule, tt.rule)
			}
			if !reflect.DeepEqual(next, tt.next) {
				t.Errorf("next states = %s, want %s", states(next), states(tt.next))
			}
		})
	}
}

func TestWalk(t *testing.T) {
	c := model.DefaultContract()
	tests := []struct {
		name     string
		ops      []model.Op
		findings []reference.BadAnswer
		final    []reference.State
	}{
		{"no calls", nil, nil, []reference.State{absent}},
		{"create then replay", []model.Op{
			op(t, p, ok("1")), op(t, pSpaced, ok("1")),
		}, nil, []reference.State{present(p, "1")}},
		{"create then changed payload refused", []model.Op{
			op(t, p, ok("1")), op(t, pOther, answer(model.Conflict)),
		}, nil, []reference.State{present(p, "1")}},
		{"unknown then ok replay binds the id", []model.Op{
			op(t, p, answer(model.Unknown)), op(t, p, ok("5")),
		}, nil, []reference.State{present(p, "5")}},
		{"unknown then ok re-encoded replay binds the id", []model.Op{
			op(t, p, answer(model.Unknown)), op(t, pSpaced, ok("5")),
		}, nil, []reference.State{present(pSpaced, "5")}},
		{"unknown then ok with a different payload: the unknown call had no effect", []model.Op{
			op(t, p, answer(model.Unknown)), op(t, pOther, ok("5")),
		}, nil, []reference.State{present(pOther, "5")}},
		{"unknown then conflict: the unknown call took effect", []model.Op{
			op(t, p, answer(model.Unknown)), op(t, pOther, answer(model.Conflict)),
		}, nil, []reference.State{present(p, "")}},
		{"unknown then a replay in flight: the unknown call may still run", []model.Op{
			op(t, p, answer(model.Unknown)), op(t, p, answer(model.InFlight)), op(t, p, ok("5")),
		}, nil, []reference.State{present(p, "5")}},
		{"unknown then conflict for an equal payload", []model.Op{
			op(t, p, answer(model.Unknown)), op(t, pSpaced, answer(model.Conflict)),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleWrongStatus}}, []reference.State{absent, present(p, "")}},
		{"a conflict while a call refused as taken held the key", []model.Op{
			timed(op(t, pOther, answer(model.Taken)), 0, 10), timed(op(t, p, answer(model.Conflict)), 5, 8),
		}, nil, []reference.State{absent}},
		{"a conflict after the taken call ended has no holder", []model.Op{
			timed(op(t, pOther, answer(model.Taken)), 0, 10), timed(op(t, p, answer(model.Conflict)), 20, 30),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleWrongStatus}}, []reference.State{absent}},
		{"an equal payload's taken call holds nothing that conflicts", []model.Op{
			timed(op(t, p, answer(model.Taken)), 0, 10), timed(op(t, pSpaced, answer(model.Conflict)), 5, 8),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleWrongStatus}}, []reference.State{absent}},
		{"two unknowns keep both possibilities", []model.Op{
			op(t, p, answer(model.Unknown)), op(t, p, answer(model.Unknown)),
		}, nil, []reference.State{absent, present(p, "")}},
		{"in flight with nothing in flight", []model.Op{
			op(t, p, answer(model.InFlight)),
		}, []reference.BadAnswer{{Op: 0, Rule: reference.RuleWrongStatus}}, []reference.State{absent}},
		{"changed payload accepted is reported once", []model.Op{
			op(t, p, ok("1")),
			op(t, pOther, ok("2")),
			op(t, p, ok("1")),
			op(t, pOther, answer(model.Conflict)),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleChangedPayloadAccepted}}, []reference.State{present(p, "1")}},
		{"unstable id is reported at the call that broke it", []model.Op{
			op(t, p, ok("1")), op(t, pSpaced, ok("2")), op(t, p, ok("1")),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleUnstableID}}, []reference.State{present(p, "1")}},
		{"a mistake after an unknown call keeps both possibilities", []model.Op{
			op(t, p, answer(model.Unknown)),
			op(t, p, answer(model.Invalid)),
			op(t, pOther, answer(model.Conflict)),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleWrongStatus}}, []reference.State{present(p, "")}},
		{"other answer is reported and may have created the action", []model.Op{
			op(t, p, model.Outcome{Kind: model.Other, Status: 200}), op(t, p, ok("3")),
		}, []reference.BadAnswer{{Op: 0, Rule: reference.RuleWrongStatus}}, []reference.State{present(p, "3")}},
		{"keyless calls", []model.Op{
			keylessOp(t, p, answer(model.Invalid)), keylessOp(t, p, ok("1")),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleWrongStatus}}, []reference.State{absent}},
		// One after another, an answered call leaves nothing in flight.
		{"ok then in flight", []model.Op{
			op(t, p, ok("1")), op(t, p, answer(model.InFlight)),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleWrongStatus}}, []reference.State{present(p, "1")}},
		// An answer outside the contract may leave the call at work.
		{"an answer outside the contract then in flight", []model.Op{
			op(t, p, answer(model.Other)), op(t, p, answer(model.InFlight)),
		}, []reference.BadAnswer{{Op: 0, Rule: reference.RuleWrongStatus}}, []reference.State{absent, present(p, "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One after another, as Walk's calls are: 10 apart, 5 long,
			// unless the case gives times of its own.
			ops := slices.Clone(tt.ops)
			if !slices.ContainsFunc(ops, func(o model.Op) bool { return o.End != 0 }) {
				for i := range ops {
					ops[i].Start, ops[i].End = int64(i*10), int64(i*10+5)
				}
			}
			findings, final := reference.Walk(c, ops)
			if !reflect.DeepEqual(findings, tt.findings) {
				t.Errorf("findings = %+v, want %+v", findings, tt.findings)
			}
			if !reflect.DeepEqual(final, tt.final) {
				t.Errorf("final states = %s, want %s", states(final), states(tt.final))
			}
		})
	}
}

func states(ss []reference.State) string {
	out := "["
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		if !s.Present {
			out += "absent"
			continue
		}
		out += fmt.Sprintf("(%s, %q)", s.Body, s.ID)
	}
	return out + "]"
}

// A call whose reply was lost may have created the action; a retry that is
// answered ok tells which ID it got.
func ExampleWalk() {
	c := model.DefaultContract()
	body := payloads.RenderPayload(c.Payload, 0, 0)
	call := model.Call{Tenant: "A", Key: "k1"}
	findings, states := reference.Walk(c, []model.Op{
		{Call: call, Body: body, Out: model.Outcome{Kind: model.Unknown, Err: "timeout"}},
		{Call: call, Body: body, Out: model.Outcome{Kind: model.OK, Status: 200, ID: "42"}},
		{Call: call, Body: body, Out: model.Outcome{Kind: model.OK, Status: 200, ID: "43"}},
	})
	fmt.Println("findings:", findings)
	fmt.Printf("final: %s id %s\n", states[0].Body, states[0].ID)
	// Output:
	// findings: [{2 3}]
	// final: {"subject":"Printer offline"} id 42
}

// Judge applies one answer to one state of an action.
func ExampleJudge() {
	c := model.DefaultContract()
	s := reference.State{Present: true, Body: []byte(`{"subject":"a"}`), ID: "7"}
	rule, _ := reference.Judge(c, s, reference.Input{Body: []byte(`{"subject":"b"}`)}, model.Outcome{Kind: model.OK, ID: "7"})
	fmt.Println(rule == reference.RuleChangedPayloadAccepted)
	// Output: true
}

func ExampleRead() {
	c := model.DefaultContract()
	created := reference.Read(c, model.Answer{Status: 201, ID: "7"})
	fmt.Println(created.Kind, created.ID, reference.Read(c, model.Answer{Status: 422}).Kind, reference.Read(c, model.Answer{Status: 500}).Kind)
	// Output: ok 7 conflict unknown
}
