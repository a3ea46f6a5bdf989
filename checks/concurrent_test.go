package checks_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// An answer no state allows (a 2xx without an ID), inside a burst, is named
// as the wrong status it is, not as "not linearizable"; the same burst with
// the ID in every answer is fine.
func TestConcurrentAnswerOutsideTheContract(t *testing.T) {
	w := plain
	for _, bad := range []bool{true, false} {
		second := ok(w.id1)
		second.Status = 200
		if bad {
			second = model.Outcome{Kind: model.Other, Status: 200}
		}
		s := scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 0), second)),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}
		vs := evaluate(w, s)
		switch {
		case bad && (len(vs) == 0 || vs[0].Check != checks.WrongStatus):
			t.Errorf("2xx without an ID in a burst: want %s first, got:\n%s", checks.WrongStatus, dump(vs))
		case !bad && len(vs) != 0:
			t.Errorf("a correct burst flagged:\n%s", dump(vs))
		}
	}
}

// invalid for a call that carried a key is wrong in every order too.
func TestConcurrentInvalidWithAKey(t *testing.T) {
	w := plain
	for _, bad := range []bool{true, false} {
		second := either(bad, status(400), model.Outcome{Kind: model.OK, Status: 200, ID: w.id1})
		s := scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 0), second)),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}
		vs := evaluate(w, s)
		switch {
		case bad && (len(vs) == 0 || vs[0].Check != checks.WrongStatus || !strings.Contains(vs[0].Message, "invalid for a call that carried a key")):
			t.Errorf("invalid with a key in a burst: want %s first, got:\n%s", checks.WrongStatus, dump(vs))
		case !bad && len(vs) != 0:
			t.Errorf("a correct burst flagged:\n%s", dump(vs))
		}
	}
}

// A violation of one answer names the action as the contract does: under a
// global key scope, the key alone.
func TestAnswerViolationNamesTheContractsAction(t *testing.T) {
	w := plain
	c := model.DefaultContract()
	c.KeyScope = model.KeyScopeGlobal
	h := history(op(0, call(w.a, w.k1, 0), status(500)))
	vs := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: h, Rows: snapshot()})
	if len(vs) == 0 || vs[0].Check != checks.WrongStatus {
		t.Fatalf("a 5xx: want %s, got:\n%s", checks.WrongStatus, dump(vs))
	}
	if want := (model.Action{Key: w.k1}); vs[0].Action != want {
		t.Errorf("action %v, want %v (global scope)", vs[0].Action, want)
	}
}
