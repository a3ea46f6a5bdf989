package model_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

func TestCallString(t *testing.T) {
	tests := []struct {
		call model.Call
		want string
	}{
		{model.Call{Tenant: "A", Key: "k1"}, "A/k1 v0"},
		{model.Call{Tenant: "B", Key: "k3", Variant: 2}, "B/k3 v2"},
		{model.Call{Tenant: "A", Key: "k1", Encoding: 3}, "A/k1 v0e3"},
		{model.Call{Tenant: "C", Key: "k2", NoKey: true, Variant: 1}, "C/(no key) v1"},
		{model.Call{Tenant: "A", Key: "k1", Variant: 1, Encoding: 2, Fault: "lose-reply"}, "A/k1 v1e2 [lose-reply]"},
	}
	for _, tt := range tests {
		if got := tt.call.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.call, got, tt.want)
		}
	}
}

func TestPlanString(t *testing.T) {
	tests := []struct {
		name string
		plan model.Plan
		want string
	}{
		{"empty", model.Plan{}, ""},
		{"calls", model.Plan{Steps: []model.Step{
			{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}},
			{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: 1, Encoding: 1}}},
			{Kind: model.StepCall, Calls: []model.Call{{Tenant: "B", Key: "k2", NoKey: true}}},
		}}, "1. call A/k1 v0\n" +
			"2. call A/k1 v1e1\n" +
			"3. call B/(no key) v0\n"},
		{"several calls in one step", model.Plan{Steps: []model.Step{
			{Kind: "burst", Calls: []model.Call{{Tenant: "A", Key: "k1"}, {Tenant: "A", Key: "k1", Encoding: 3}}},
		}}, "1. burst A/k1 v0 | A/k1 v0e3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.plan.String(); got != tt.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestOutcomeAndOpString(t *testing.T) {
	for _, tc := range []struct {
		op   model.Op
		want string
	}{
		{model.Op{Call: model.Call{Tenant: "A", Key: "k1"}, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}}, "A/k1 v0 → ok 201 id 7"},
		{model.Op{Call: model.Call{Tenant: "A", Key: "k1", Variant: 1}, Out: model.Outcome{Kind: model.Conflict, Status: 422}}, "A/k1 v1 → conflict 422"},
		{model.Op{Call: model.Call{Tenant: "B", NoKey: true}, Out: model.Outcome{Kind: model.Unknown, Err: "timeout"}}, "B/(no key) v0 → no answer (timeout)"},
	} {
		if got := tc.op.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestPlanJSONRoundTrip(t *testing.T) {
	plan := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: 2, Encoding: 1}}},
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "B", Key: "k2", NoKey: true}}},
	}}
	raw, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"steps":[{"kind":"call","calls":[{"tenant":"A","key":"k1","variant":2,"encoding":1}]},` +
		`{"kind":"call","calls":[{"tenant":"B","key":"k2","no_key":true,"variant":0}]}]}`
	if string(raw) != want {
		t.Errorf("JSON = %s\nwant   %s", raw, want)
	}
	var back model.Plan
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, plan) {
		t.Errorf("round trip = %+v, want %+v", back, plan)
	}
	if got := back.NumCalls(); got != 2 {
		t.Errorf("NumCalls = %d, want 2", got)
	}
}

func ExamplePlan_String() {
	plan := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}},
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: 1}}},
	}}
	fmt.Print(plan)
	// Output:
	// 1. call A/k1 v0
	// 2. call A/k1 v1
}

// Overlap is what the client saw; AtWork adds the time a call whose effect is
// unknown may still be at work after its client gave up.
func TestOverlapAtWork(t *testing.T) {
	at := func(start, end int64, kind model.OutcomeKind) model.Op {
		return model.Op{Start: start, End: end, Out: model.Outcome{Kind: kind}}
	}
	for _, tc := range []struct {
		name                string
		a, b                model.Op
		overlap, concurrent bool
	}{
		{"one after another", at(0, 5, model.OK), at(10, 15, model.OK), false, false},
		{"overlapping", at(0, 10, model.OK), at(5, 15, model.OK), true, true},
		{"touching (closed intervals)", at(0, 10, model.OK), at(10, 15, model.OK), true, true},
		{"after a call with no answer", at(0, 5, model.Unknown), at(10, 15, model.OK), false, true},
		{"after an answer outside the contract", at(0, 5, model.Other), at(10, 15, model.InFlight), false, true},
		{"before a call with no answer", at(0, 5, model.OK), at(10, 15, model.Unknown), false, false},
	} {
		if got := model.Overlap(tc.a, tc.b); got != tc.overlap || model.Overlap(tc.b, tc.a) != got {
			t.Errorf("%s: Overlap = %v, want %v (both ways)", tc.name, got, tc.overlap)
		}
		if got := model.Overlap(tc.a.AtWork(), tc.b.AtWork()); got != tc.concurrent || model.Overlap(tc.b.AtWork(), tc.a.AtWork()) != got {
			t.Errorf("%s: Overlap AtWork = %v, want %v (both ways)", tc.name, got, tc.concurrent)
		}
	}
	if got := at(0, 5, model.Unknown).Until(); got != math.MaxInt64 {
		t.Errorf("Until of a call with no answer = %d, want never", got)
	}
	if got := at(9, 5, model.OK).Until(); got != 9 {
		t.Errorf("Until of a call whose clock ran backwards = %d, want its start", got)
	}
}
