package checks_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// The errors: policy, both ways: a call failed by the db-error fault and
// its retry. Under not-stored the retry must be executed afresh, under
// stored it must get the same error; the failed call's own 5xx is never a
// wrong status, a fresh 5xx of a retry (another body) is one, and a
// partial effect the failure left is a missing effect.
func TestErrorPolicy(t *testing.T) {
	w := plain
	other := model.Outcome{Kind: model.Unknown, Status: 500, Body: model.Body(`{"error":"another"}`)}
	for _, tc := range []struct {
		name   string
		stored bool
		// faulted: the retry is delivered twice (double-delivery).
		faulted bool
		retry   model.Outcome
		rows    []put
		want    []checks.ID // the checks that fire, primary first; none: silent
	}{
		{name: "not-stored: executed afresh", retry: ok(w.id1), rows: w.created(w.a, w.k1, w.id1, 0)},
		{name: "not-stored: replayed", retry: serverError(), want: []checks.ID{checks.ErrorReplay}},
		{name: "not-stored: a fresh 5xx", retry: other, want: []checks.ID{checks.WrongStatus}},
		{name: "stored: replayed", stored: true, retry: serverError()},
		{name: "stored: executed afresh", stored: true, retry: ok(w.id1), rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.ErrorReplay}},
		// A new user's Stripe-like service: a burst of two retries, one
		// got the saved 500, the other the 409 "key in use".
		{name: "stored: a retry told the key is in flight", stored: true, retry: model.Outcome{Kind: model.InFlight, Status: 409}},
		// The saved 500 replayed to a retry delivered twice is the replay
		// the contract asks for, not a wrong status.
		{name: "stored: replayed to a retry with a fault of its own", stored: true, faulted: true, retry: serverError()},
		{name: "stored: executed afresh with a fault of its own", stored: true, faulted: true, retry: ok(w.id1), rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.ErrorReplay}},
		{name: "not-stored: a partial effect left by the failure", retry: ok(w.id1), rows: w.ticket(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.MissingEffect}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.ErrorsStored = tc.stored
			retry := call(w.a, w.k1, 0)
			if tc.faulted {
				retry.Fault = model.FaultDoubleDelivery
			}
			h := history(op(0, dbError(call(w.a, w.k1, 0)), serverError()), op(1, retry, tc.retry))
			got := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: h, Rows: snapshot(tc.rows)})
			if ids := checks.IDsOf(got); !slices.Equal(ids, tc.want) {
				t.Errorf("checks fired %v, want %v:\n%s", ids, tc.want, dump(got))
			}
		})
	}
}
