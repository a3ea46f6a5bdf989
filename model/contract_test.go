package model_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/model"
)

func TestClassify(t *testing.T) {
	c := model.DefaultContract()
	custom := model.DefaultContract()
	custom.Statuses = model.Statuses{Conflict: []int{409}, InFlight: []int{425, 503}, Invalid: []int{400, 422}}
	tests := []struct {
		contract model.Contract
		answered bool
		status   int
		hasID    bool
		want     model.OutcomeKind
	}{
		{c, false, 0, false, model.Unknown},
		{c, false, 201, true, model.Unknown}, // no answer wins over anything else
		{c, true, 200, true, model.OK},
		{c, true, 201, true, model.OK},
		{c, true, 299, true, model.OK},
		{c, true, 201, false, model.Other}, // 2xx without a resource ID
		{c, true, 204, false, model.Other},
		{c, true, 302, true, model.Other},
		{c, true, 422, false, model.Conflict},
		{c, true, 409, false, model.InFlight},
		{c, true, 400, false, model.Invalid},
		{c, true, 404, false, model.Other},
		{c, true, 429, false, model.Other},
		{c, true, 500, false, model.Unknown},
		{c, true, 503, false, model.Unknown},
		{c, true, 599, false, model.Unknown},
		{custom, true, 409, false, model.Conflict},
		{custom, true, 425, false, model.InFlight},
		{custom, true, 503, false, model.InFlight}, // a contract status wins over the 5xx rule
		{custom, true, 422, false, model.Invalid},
		{custom, true, 500, false, model.Unknown},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%v answered=%v status=%d id=%v", tt.contract.Statuses, tt.answered, tt.status, tt.hasID)
		t.Run(name, func(t *testing.T) {
			if got := tt.contract.Classify(tt.answered, tt.status, tt.hasID); got != tt.want {
				t.Errorf("Classify = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestActionOf(t *testing.T) {
	call := model.Call{Tenant: "B", Key: "k2", Variant: 1}
	tenant := model.DefaultContract()
	global := model.DefaultContract()
	global.KeyScope = model.KeyScopeGlobal
	if got, want := tenant.ActionOf(call), (model.Action{Tenant: "B", Key: "k2"}); got != want {
		t.Errorf("tenant scope: ActionOf = %v, want %v", got, want)
	}
	if got, want := global.ActionOf(call), (model.Action{Key: "k2"}); got != want {
		t.Errorf("global scope: ActionOf = %v, want %v", got, want)
	}
}

func ExampleContract_Classify() {
	c := model.DefaultContract()
	fmt.Println(c.Classify(true, 201, true), c.Classify(true, 422, false), c.Classify(true, 500, false), c.Classify(false, 0, false))
	// Output: ok conflict unknown unknown
}

// A contract built in Go with only some fields set judges like the default
// for the rest, and keeps what it set.
func TestWithDefaults(t *testing.T) {
	if got, want := (model.Contract{}).WithDefaults(), model.DefaultContract(); !reflect.DeepEqual(got, want) {
		t.Errorf("zero contract with defaults = %+v, want %+v", got, want)
	}
	own := model.Contract{Statuses: model.Statuses{Conflict: []int{409}, InFlight: []int{425}},
		KeyScope: model.KeyScopeGlobal, Recovery: time.Minute}.WithDefaults()
	if !slices.Equal(own.Statuses.Conflict, []int{409}) || !slices.Equal(own.Statuses.InFlight, []int{425}) ||
		!slices.Equal(own.Statuses.Invalid, []int{400}) || own.KeyScope != model.KeyScopeGlobal || own.Recovery != time.Minute ||
		own.Equivalence != model.EquivalenceCanonicalJSON {
		t.Errorf("WithDefaults changed or missed a field: %+v", own)
	}
	// Before defaults, a 422 is an answer outside the contract; after, a conflict.
	if got := (model.Contract{}).Classify(true, 422, false); got != model.Other {
		t.Errorf("zero contract classifies 422 as %s", got)
	}
	if got := (model.Contract{}).WithDefaults().Classify(true, 422, false); got != model.Conflict {
		t.Errorf("defaulted contract classifies 422 as %s", got)
	}
}
