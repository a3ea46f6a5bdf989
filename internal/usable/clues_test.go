package usable

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// What the answers say about the request is read from histories alone: a
// 404 before any ok answer is the request's clue, an ok answer makes it
// the service's; a variant refused after the base payload was taken is a
// refused input, one refused after a broken call of its action is not.
func TestCluesFromHistories(t *testing.T) {
	c := model.DefaultContract()
	call := func(key string, variant, broken int) model.Call {
		return model.Call{Tenant: "A", Key: key, Variant: variant, Broken: broken}
	}
	op := func(cl model.Call, kind model.OutcomeKind, status int) model.Op {
		return model.Op{Call: cl, Out: model.Outcome{Kind: kind, Status: status, ID: "r1"}}
	}
	hist := func(ops ...model.Op) model.History { return model.History{Ops: ops} }
	for _, tc := range []struct {
		name  string
		hs    []model.History
		check func(Clues) bool
	}{
		{"a 404 with no ok answer is unusable", []model.History{hist(op(call("k1", 0, 0), model.Other, 404))},
			func(k Clues) bool {
				return k.RefusedUnanswered() && k.unusable.Out.Status == 404 && k.unusableNS == "ns0-"
			}},
		{"an ok answer later makes it usable", []model.History{hist(op(call("k1", 0, 0), model.Other, 404)), hist(op(call("k2", 0, 0), model.OK, 201))},
			func(k Clues) bool { return !k.RefusedUnanswered() && k.ids && k.baseOK && k.unusableNS == "ns0-" }},
		{"an ok answer to a variant is not the base taken", []model.History{hist(op(call("k1", 1, 0), model.OK, 201))},
			func(k Clues) bool { return k.ids && !k.baseOK }},
		{"a 5xx with a key is a server error", []model.History{hist(op(call("k1", 0, 0), model.Unknown, 500))},
			func(k Clues) bool { return k.serverErrors && k.unusable == nil }},
		{"a variant refused after the base was taken", []model.History{hist(op(call("k1", 0, 0), model.OK, 201)), hist(op(call("k2", 1, 0), model.Invalid, 400))},
			func(k Clues) bool {
				return k.refused != nil && k.refused.Call.Key == "k2" && k.refusedNS == "ns1-" && k.baseOK
			}},
		{"a variant refused after a broken call of its action", []model.History{hist(op(call("k2", 0, 1), model.Invalid, 400), op(call("k2", 1, 0), model.Invalid, 400))},
			func(k Clues) bool { return k.refused == nil && !k.baseOK }},
		{"the first unusable call stays the first", []model.History{hist(op(call("k1", 0, 0), model.Invalid, 400)), hist(op(call("k2", 0, 0), model.Other, 404))},
			func(k Clues) bool { return k.unusable.Out.Status == 400 && k.unusableNS == "ns0-" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var k Clues
			for i, h := range tc.hs {
				k = k.Add(c, model.Namespace("ns"+string(rune('0'+i))+"-"), h)
			}
			if !tc.check(k) {
				t.Errorf("clues %+v", k)
			}
		})
	}
}

// At the run's end the clues name one contract mistake, in order: no ID
// anywhere, no usable answer, then a refused input; none after an
// infrastructure stop, and no refused input once interrupted.
func TestProblemOfClues(t *testing.T) {
	some := &model.Op{}
	for _, tc := range []struct {
		name                 string
		k                    Clues
		bugs                 int
		stopped, interrupted bool
		want                 Problem
		note                 bool
	}{
		{"nothing wrong", Clues{ids: true, baseOK: true}, 0, false, false, RequestUsable, false},
		{"no ID anywhere", Clues{noID: some}, 0, false, false, IDNowhere, false},
		{"an ID once is enough", Clues{ids: true, noID: some}, 0, false, false, RequestUsable, false},
		{"no usable answer", Clues{unusable: some}, 0, false, false, NoUsableAnswer, false},
		{"no usable answer though bugs were found", Clues{unusable: some}, 2, false, false, NoUsableAnswer, false},
		{"bugs behind 5xx are kept, the answer noted", Clues{unusable: some, serverErrors: true}, 2, false, false, RequestUsable, true},
		{"no usable answer and no bug behind 5xx", Clues{unusable: some, serverErrors: true}, 0, false, false, NoUsableAnswer, false},
		{"an input refused", Clues{ids: true, baseOK: true, refused: some}, 1, false, false, InputRefused, false},
		{"an input refused, the base never taken", Clues{ids: true, refused: some}, 0, false, false, RequestUsable, false},
		{"an input refused, the run interrupted", Clues{ids: true, baseOK: true, refused: some}, 0, false, true, RequestUsable, false},
		{"a stop outweighs every clue", Clues{noID: some, unusable: some, refused: some, baseOK: true}, 0, true, false, RequestUsable, false},
		{"no ID outweighs no usable answer", Clues{noID: some, unusable: some}, 0, false, false, IDNowhere, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, note := tc.k.Problem(tc.bugs, tc.stopped, tc.interrupted)
			if p != tc.want || note != tc.note {
				t.Errorf("problem = %d, note %v; want %d, note %v", p, note, tc.want, tc.note)
			}
		})
	}
}
