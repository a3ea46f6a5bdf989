package payloads_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// replayedContract is the fingerprint policy changed_payload: replayed:
// GoCardless, Google's requestId, a Kubernetes name.
func replayedContract() model.Contract {
	c := model.DefaultContract()
	c.ChangedReplayed = true
	return c
}

// Under changed_payload: replayed a changed payload is answered as the
// original: ok with its ID, and the winning payload stays the first.
func TestJudgeChangedReplayed(t *testing.T) {
	c := replayedContract()
	tests := []struct {
		name  string
		state reference.State
		in    reference.Input
		out   model.Outcome
		rule  reference.Rule
		next  []reference.State
	}{
		{"changed: ok with the original's id replays, the first payload stays", present(p, "7"), reference.Input{Body: pOther}, ok("7"),
			reference.RuleHolds, []reference.State{present(p, "7")}},
		{"changed: ok with another id is a new resource", present(p, "7"), reference.Input{Body: pOther}, ok("8"),
			reference.RuleUnstableID, []reference.State{present(p, "7")}},
		{"changed: conflict is refused where the original's answer is due", present(p, "7"), reference.Input{Body: pOther}, answer(model.Conflict),
			reference.RuleChangedPayloadRefused, []reference.State{present(p, "7")}},
		{"equivalent: conflict is still an equal payload rejected", present(p, "7"), reference.Input{Body: pSpaced}, answer(model.Conflict),
			reference.RuleEquivalentRejected, []reference.State{present(p, "7")}},
		{"absent: conflict is still no answer for a fresh key", absent, reference.Input{Body: pOther}, answer(model.Conflict),
			reference.RuleWrongStatus, []reference.State{absent}},
		{"created unheard: a changed ok binds the id to the first payload", present(p, ""), reference.Input{Body: pOther}, ok("9"),
			reference.RuleHolds, []reference.State{present(p, "9")}},
		{"absent: a changed payload's ok creates with it", absent, reference.Input{Body: pOther}, ok("3"),
			reference.RuleHolds, []reference.State{present(pOther, "3")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule, next := reference.Judge(c, tt.state, tt.in, tt.out)
			if rule != tt.rule {
				t.Errorf("rule = %d, want %d", rule, tt.rule)
			}
			if !reflect.DeepEqual(next, tt.next) {
				t.Errorf("next states = %s, want %s", states(next), states(tt.next))
			}
		})
	}
}

func TestWalkChangedReplayed(t *testing.T) {
	tests := []struct {
		name     string
		replayed bool
		ops      []model.Op
		findings []reference.BadAnswer
		final    []reference.State
	}{
		{"replayed: a changed payload answered as the original", true, []model.Op{
			op(t, p, ok("1")), op(t, pOther, ok("1")), op(t, p, ok("1")),
		}, nil, []reference.State{present(p, "1")}},
		{"conflict policy: the same answers accept a changed payload", false, []model.Op{
			op(t, p, ok("1")), op(t, pOther, ok("1")), op(t, p, ok("1")),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleChangedPayloadAccepted}}, []reference.State{present(p, "1")}},
		{"replayed: a changed payload executed afresh", true, []model.Op{
			op(t, p, ok("1")), op(t, pOther, ok("2")),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleUnstableID}}, []reference.State{present(p, "1")}},
		{"replayed: a changed payload refused", true, []model.Op{
			op(t, p, ok("1")), op(t, pOther, answer(model.Conflict)),
		}, []reference.BadAnswer{{Op: 1, Rule: reference.RuleChangedPayloadRefused}}, []reference.State{present(p, "1")}},
		{"conflict policy: a changed payload refused", false, []model.Op{
			op(t, p, ok("1")), op(t, pOther, answer(model.Conflict)),
		}, nil, []reference.State{present(p, "1")}},
		// The unknown call may have won: then the first payload is its.
		{"replayed: unknown then a changed ok keeps both winners", true, []model.Op{
			op(t, p, answer(model.Unknown)), op(t, pOther, ok("5")),
		}, nil, []reference.State{present(pOther, "5"), present(p, "5")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.ChangedReplayed = tt.replayed
			ops := slices.Clone(tt.ops)
			for i := range ops {
				ops[i].Start, ops[i].End = int64(i*10), int64(i*10+5)
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
