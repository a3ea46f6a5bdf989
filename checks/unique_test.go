package checks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// uniqueOf is call c sending the unique values of key holder's action.
func uniqueOf(c model.Call, holder string) model.Call { c.UniqueOf = holder; return c }

var taken = model.Outcome{Kind: model.Taken, Status: 409}

// A second unique field (unique: [/subject]): a call that sends another
// action's value must be refused as taken while that action holds it, and
// leave nothing; a taken answer needs a holder.
func TestEvaluateUnique(t *testing.T) {
	w := plain
	borrow := uniqueOf(call(w.a, w.k2, 0), w.k1)
	tests := []struct {
		name    string
		s       scenario
		want    checks.ID // "" for no violation
		message string
	}{
		{"another action's value refused as taken", scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, borrow, taken)),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, "", ""},
		{"the holder's retry after the refusal", scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, borrow, taken), op(2, call(w.a, w.k1, 0), ok(w.id1))),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, "", ""},
		{"a holder whose reply was lost may hold it", scenario{
			history(op(0, faulty(call(w.a, w.k1, 0)), noAnswer("timeout")), op(1, borrow, taken)),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, "", ""},
		{"in a burst either action may win the value", scenario{
			history(op(0, call(w.a, w.k1, 0), taken), op(0, borrow, ok(w.id2))),
			snapshot(w.created(w.a, w.k2, w.id2, 0)),
		}, "", ""},
		{"a value nobody holds refused as taken", scenario{
			history(op(0, borrow, taken)),
			snapshot(),
		}, checks.WrongStatus, "no other action holds"},
		{"an action's own value refused as taken", scenario{
			history(op(0, call(w.a, w.k1, 0), taken)),
			snapshot(),
		}, checks.WrongStatus, "no other action holds"},
		{"another action's value accepted", scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, borrow, ok(w.id2))),
			snapshot(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k2, w.id2, 0)),
		}, checks.WrongStatus, "another action holds"},
		{"refused as taken, but rows written", scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, borrow, taken)),
			snapshot(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k2, w.id2, 0)),
		}, checks.RejectedEffect, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.Unique = []string{"/subject"}
			vs := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: tt.s.h, Rows: tt.s.rows})
			if tt.want == "" {
				if len(vs) != 0 {
					t.Fatalf("want no violation, got:\n%s", dump(vs))
				}
				return
			}
			if len(vs) == 0 || vs[0].Check != tt.want || !strings.Contains(vs[0].Message, tt.message) {
				t.Fatalf("want %s (%q) first, got:\n%s", tt.want, tt.message, dump(vs))
			}
		})
	}
}

// An action holds the value of the call that created it only: a later
// call of an existing action writes nothing, whatever value it sends.
func TestEvaluateUniqueHeldByTheCreator(t *testing.T) {
	w := plain
	c := model.DefaultContract()
	c.Unique, c.ChangedReplayed = []string{"/subject"}, true
	replay := op(1, uniqueOf(call(w.a, w.k1, 0), w.k2), ok(w.id1))
	rows := snapshot(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k2, w.id2, 0))
	for _, h := range []model.History{
		history(op(0, call(w.a, w.k1, 0), ok(w.id1)), replay, op(2, call(w.a, w.k2, 0), ok(w.id2))),
		// The replay after the value's holder was made is no creation either.
		history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k2, 0), ok(w.id2)), op(2, replay.Call, ok(w.id1))),
	} {
		if vs := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: h, Rows: rows}); len(vs) != 0 {
			t.Errorf("a replay that sent another action's value:\n%s", dump(vs))
		}
	}
}

// In a burst of one action's calls, one with another action's value, the
// ok answer may be the replay of the other call's creation.
func TestEvaluateUniqueBurstOfOneAction(t *testing.T) {
	w := plain
	c := model.DefaultContract()
	c.Unique, c.ChangedReplayed = []string{"/subject"}, true
	for _, bad := range []bool{false, true} {
		own := op(1, call(w.a, w.k2, 0), ok(w.id2))
		if bad {
			own.Out = taken // then only the call with k1's value can have created k2
		}
		h := history(op(0, call(w.a, w.k1, 0), ok(w.id1)), own, op(1, uniqueOf(call(w.a, w.k2, 0), w.k1), ok(w.id2)))
		rows := snapshot(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k2, w.id2, 0))
		vs := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: h, Rows: rows})
		fired := slices.ContainsFunc(vs, func(v checks.Violation) bool { return strings.Contains(v.Message, "another action holds") })
		if fired != bad {
			t.Errorf("own call taken %v: fired %v:\n%s", bad, fired, dump(vs))
		}
	}
}
