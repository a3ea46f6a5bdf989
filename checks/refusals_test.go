package checks_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// The refusals: policy, both ways: a call that breaks a payload rule and
// the fixed call with the same key. A refusal of the broken call, whatever
// 4xx it is, leaves no effect; under not-stored the fixed call must be
// executed, under stored it must get the refusal again (or a conflict).
func TestRefusalPolicy(t *testing.T) {
	w := plain
	unprocessable := model.Outcome{Kind: model.Conflict, Status: 422, Body: model.Body(`{"error":"priority must be 1 to 5"}`)}
	for _, tc := range []struct {
		name    string
		policy  model.Refusals
		refusal model.Outcome // the broken call's answer
		retried bool          // the broken call is sent twice
		fixed   *model.Outcome
		rows    []put
		want    []checks.ID // the checks that fire, primary first; none: silent
	}{
		{name: "not-stored: fixed and created", refusal: status(400), fixed: ptr(ok(w.id1)), rows: w.created(w.a, w.k1, w.id1, 0)},
		{name: "not-stored: refused twice, then fixed", refusal: status(400), retried: true, fixed: ptr(ok(w.id1)), rows: w.created(w.a, w.k1, w.id1, 0)},
		{name: "not-stored: a validation 422 where conflicts are 422", refusal: unprocessable, fixed: ptr(ok(w.id1)), rows: w.created(w.a, w.k1, w.id1, 0)},
		{name: "not-stored: any other 4xx", refusal: status(413), fixed: ptr(ok(w.id1)), rows: w.created(w.a, w.k1, w.id1, 0)},
		{name: "not-stored: the fixed call refused again", refusal: status(400), fixed: ptr(status(400)), want: []checks.ID{checks.RefusalReplay}},
		{name: "not-stored: the refused call left rows", refusal: status(400), rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.RejectedEffect}},
		{name: "not-stored: the refused call left rows, then fixed", refusal: status(400), fixed: ptr(ok(w.id2)),
			rows: append(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k1, w.id2, 0)...), want: []checks.ID{checks.DuplicateEffect}},
		{name: "a broken call answered 5xx", refusal: serverError(), want: []checks.ID{checks.WrongStatus}},
		{name: "stored: the fixed call gets the refusal", policy: model.RefusalsStored, refusal: status(400), retried: true, fixed: ptr(status(400))},
		{name: "stored: a conflict for the fixed call's payload", policy: model.RefusalsStored, refusal: status(400), fixed: ptr(status(422))},
		{name: "stored: the fixed call executed", policy: model.RefusalsStored, refusal: status(400), fixed: ptr(ok(w.id1)),
			rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.RefusalReplay}},
		{name: "stored: the refusal saved left rows", policy: model.RefusalsStored, refusal: status(400), fixed: ptr(status(400)),
			rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.RejectedEffect}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.Refusals = tc.policy
			ops := []model.Op{op(0, broken(call(w.a, w.k1, 0)), tc.refusal)}
			if tc.retried {
				ops = append(ops, op(1, broken(call(w.a, w.k1, 0)), tc.refusal))
			}
			if tc.fixed != nil {
				ops = append(ops, op(len(ops), call(w.a, w.k1, 0), *tc.fixed))
			}
			for i := range ops {
				if ops[i].Call.Broken > 0 {
					ops[i].Body = model.Body(`{"subject":""}`)
				}
			}
			got := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: history(ops...), Rows: snapshot(tc.rows)})
			if ids := checks.IDsOf(got); !slices.Equal(ids, tc.want) {
				t.Errorf("checks fired %v, want %v:\n%s", ids, tc.want, dump(got))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
