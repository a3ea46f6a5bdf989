package checks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
)

// The fingerprint policy changed_payload: replayed (GoCardless, Google's
// requestId, a Kubernetes name): a changed payload under a used key is
// answered as the original, with its ID, no new effect, and the first
// payload's fields stored.
func TestEvaluateChangedReplayed(t *testing.T) {
	w := plain
	replay := func(v int) model.Op { return op(1, call(w.a, w.k1, v), ok(w.id1)) }
	tests := []struct {
		name     string
		replayed bool
		s        scenario
		want     checks.ID // "" for no violation at all
		message  string
	}{
		{"a changed payload replayed as the original", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), replay(1)),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, "", ""},
		{"under the default policy the same replay is a changed payload accepted", false, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), replay(1)),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, checks.ChangedAccepted, ""},
		{"the changed payload's fields stored over the first's", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), replay(1)),
			snapshot(w.created(w.a, w.k1, w.id1, 1)),
		}, checks.FieldsDiffer, "winning payload"},
		{"the changed payload executed as a second resource", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 1), ok(w.id2))),
			snapshot(w.created(w.a, w.k1, w.id1, 0), w.created(w.a, w.k1, w.id2, 1)),
		}, checks.DuplicateEffect, ""},
		{"the changed payload answered a new ID, nothing stored", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 1), ok(w.id2))),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, checks.UnstableResponse, ""},
		{"the changed payload refused as a conflict", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, call(w.a, w.k1, 1), status(422))),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, checks.WrongStatus, "changed_payload: replayed"},
		{"an equal payload refused is still IDEM-005", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(1, encoded(call(w.a, w.k1, 0), 1), status(422))),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, checks.EqualRejected, ""},
		// In a burst either payload may have won; a row must hold one of them.
		{"a burst of two payloads, the second one's fields stored", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 1), ok(w.id1))),
			snapshot(w.created(w.a, w.k1, w.id1, 1)),
		}, "", ""},
		{"a burst of two payloads, a third one's fields stored", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 1), ok(w.id1))),
			snapshot(w.created(w.a, w.k1, w.id1, 2)),
		}, checks.FieldsDiffer, "winning payload"},
		{"a burst of two payloads, one refused as a conflict", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 1), status(422))),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, checks.WrongStatus, "changed_payload: replayed"},
		{"a burst of two payloads answered two IDs", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 1), ok(w.id2))),
			snapshot(w.created(w.a, w.k1, w.id1, 0)),
		}, checks.UnstableResponse, ""},
		// A call after the burst's first ok answer cannot have won.
		{"a later call's payload is no winner", true, scenario{
			history(op(0, call(w.a, w.k1, 0), ok(w.id1)), op(0, call(w.a, w.k1, 0), ok(w.id1)), replay(1)),
			snapshot(w.created(w.a, w.k1, w.id1, 1)),
		}, checks.FieldsDiffer, "winning payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.ChangedReplayed = tt.replayed
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
			if tt.replayed && slices.ContainsFunc(vs, func(v checks.Violation) bool { return v.Check == checks.ChangedAccepted }) {
				t.Errorf("IDEM-004 under changed_payload: replayed:\n%s", dump(vs))
			}
		})
	}
}

// Under changed_payload: replayed the key alone says what a call gets
// back: a call with a changed payload after a transient error is a retry
// of the failed call, under either errors: policy.
func TestErrorPolicyChangedReplayed(t *testing.T) {
	w := plain
	for _, tc := range []struct {
		name   string
		stored bool
		retry  model.Outcome
		rows   []put
		want   []checks.ID
	}{
		{"stored: the saved error replayed to a changed payload", true, serverError(), nil, nil},
		{"stored: a changed payload executed afresh", true, ok(w.id1), w.created(w.a, w.k1, w.id1, 1), []checks.ID{checks.ErrorReplay}},
		{"not-stored: a changed payload executed afresh", false, ok(w.id1), w.created(w.a, w.k1, w.id1, 1), nil},
		{"not-stored: the error replayed to a changed payload", false, serverError(), nil, []checks.ID{checks.ErrorReplay}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := model.DefaultContract()
			c.ErrorsStored, c.ChangedReplayed = tc.stored, true
			h := history(op(0, dbError(call(w.a, w.k1, 0)), serverError()), op(1, call(w.a, w.k1, 1), tc.retry))
			got := checks.Evaluate(checks.Input{Contract: c, Effects: sampleEffects(), NS: w.ns, History: h, Rows: snapshot(tc.rows)})
			if ids := checks.IDsOf(got); !slices.Equal(ids, tc.want) {
				t.Errorf("checks fired %v, want %v:\n%s", ids, tc.want, dump(got))
			}
		})
	}
}
