package checks_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
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

// A db-error that did not fire made nothing fail: a service that answers
// every call 500 is blamed for its 500s (IDEM-008), not for replaying an
// error the fault never caused (a new user's trial read IDEM-016 on a
// service whose every answer was a server error).
func TestErrorPolicyNeedsTheFaultFired(t *testing.T) {
	w := plain
	for _, fired := range []bool{true, false} {
		h := history(op(0, dbError(call(w.a, w.k1, 0)), serverError()), op(1, call(w.a, w.k1, 0), serverError()))
		h.Faults = []model.FaultEvent{{Kind: model.FaultDBError, Fired: fired, Ops: []int{0}}}
		got := checks.IDsOf(checks.Evaluate(checks.Input{Contract: model.DefaultContract(), Effects: sampleEffects(), NS: w.ns, History: h}))
		want := []checks.ID{checks.ErrorReplay}
		if !fired {
			want = []checks.ID{checks.WrongStatus}
		}
		if !slices.Equal(got, want) {
			t.Errorf("db-error fired %v: checks fired %v, want %v", fired, got, want)
		}
	}
}

// graphqlErrors answers every call 200: created with data, a failed
// mutation with errors[0].extensions.code INTERNAL_SERVER_ERROR, which
// answers.server_error makes a server error.
func graphqlErrors() model.Contract {
	c := model.DefaultContract()
	c.Answers = model.Answers{
		Created:     []model.Matcher{{Status: []int{200}, Absent: []string{"/errors"}}},
		ServerError: []model.Matcher{{Status: []int{200}, Equals: map[string]string{"/errors/0/extensions/code": "INTERNAL_SERVER_ERROR"}}},
	}
	return c
}

// graphqlAnswer is what the graphql contract reads body as.
func graphqlAnswer(c model.Contract, body, id string) model.Outcome {
	r := reference.Read(c, model.Answer{Status: 200, Body: []byte(body), ID: id})
	return model.Outcome{Kind: r.Kind, Status: 200, ID: r.ID, Body: model.Body(body)}
}

// A 200 server error is judged as a 5xx is, everywhere: the db-error
// fault's own answer, the errors: policy of its retry, a wrong status
// where no fault explains it. A created 200 after a saved 200 error is
// no replay of it, though the status is the same.
func TestErrorPolicyOf2xxServerErrors(t *testing.T) {
	w := plain
	const (
		failed  = `{"data":null,"errors":[{"message":"internal","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}`
		another = `{"data":null,"errors":[{"message":"again","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}`
		created = `{"data":{"createPayment":{"id":"7"}}}`
	)
	for _, tc := range []struct {
		name    string
		stored  bool
		noFault bool // the first call carried no db-error
		retry   string
		rows    []put
		want    []checks.ID
	}{
		{name: "not-stored: executed afresh", retry: created, rows: w.created(w.a, w.k1, w.id1, 0)},
		{name: "not-stored: replayed", retry: failed, want: []checks.ID{checks.ErrorReplay}},
		{name: "not-stored: a fresh server error", retry: another, want: []checks.ID{checks.WrongStatus}},
		{name: "stored: replayed", stored: true, retry: failed},
		{name: "stored: executed afresh", stored: true, retry: created, rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.ErrorReplay}},
		{name: "a server error no fault explains", noFault: true, retry: created, rows: w.created(w.a, w.k1, w.id1, 0), want: []checks.ID{checks.WrongStatus}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := graphqlErrors()
			c.ErrorsStored = tc.stored
			first := dbError(call(w.a, w.k1, 0))
			if tc.noFault {
				first.Fault = model.FaultNone
			}
			h := history(op(0, first, graphqlAnswer(c, failed, "")), op(1, call(w.a, w.k1, 0), graphqlAnswer(c, tc.retry, w.id1)))
			got := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: h, Rows: snapshot(tc.rows)})
			if ids := checks.IDsOf(got); !slices.Equal(ids, tc.want) {
				t.Errorf("checks fired %v, want %v:\n%s", ids, tc.want, dump(got))
			}
		})
	}
}

// A service may retry the transaction a transient failure failed (a
// serialization failure or a deadlock, 40001 or 40P01, is what a retry
// loop is for) and answer the call ok: that is no error to store or
// replay under either policy, only an ok call, judged as one. Its retry
// replays it; a second effect set is a duplicate, as anywhere.
func TestErrorRetriedInside(t *testing.T) {
	w := plain
	for _, stored := range []bool{false, true} {
		for _, tc := range []struct {
			name string
			rows []put
			want []checks.ID
		}{
			{"one effect set", w.created(w.a, w.k1, w.id1, 0), nil},
			{"two effect sets", append(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k1, w.id2, 0)...), []checks.ID{checks.DuplicateEffect}},
		} {
			c := model.DefaultContract()
			c.ErrorsStored = stored
			h := history(op(0, dbError(call(w.a, w.k1, 0)), ok(w.id1)), op(1, call(w.a, w.k1, 0), ok(w.id1)))
			h.Faults = []model.FaultEvent{{Kind: model.FaultDBError, Point: "40001", Fired: true, Ops: []int{0}}}
			got := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: h, Rows: snapshot(tc.rows)})
			if ids := checks.IDsOf(got); len(ids) == 0 && len(tc.want) > 0 || len(ids) > 0 && (len(tc.want) == 0 || ids[0] != tc.want[0]) {
				t.Errorf("stored %v, %s: checks fired %v, want %v first:\n%s", stored, tc.name, ids, tc.want, dump(got))
			}
		}
	}
}
