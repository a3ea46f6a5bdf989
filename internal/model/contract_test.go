package model_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/reference"
)

// The statuses: shorthand reads an answer by its status alone (and
// whether it carried an ID).
func TestReadByStatus(t *testing.T) {
	c := model.DefaultContract()
	custom := model.DefaultContract()
	custom.Statuses = model.Statuses{Conflict: []int{409}, InFlight: []int{425, 503}, Invalid: []int{400, 422}}
	tests := []struct {
		contract model.Contract
		status   int
		hasID    bool
		want     model.OutcomeKind
	}{
		{c, 200, true, model.OK},
		{c, 201, true, model.OK},
		{c, 299, true, model.OK},
		{c, 201, false, model.Other}, // 2xx without a resource ID
		{c, 204, false, model.Other},
		{c, 302, true, model.Other},
		{c, 422, false, model.Conflict},
		{c, 409, false, model.InFlight},
		{c, 400, false, model.Invalid},
		{c, 404, false, model.Other},
		{c, 429, false, model.Other},
		{c, 500, false, model.Unknown},
		{c, 503, false, model.Unknown},
		{c, 599, false, model.Unknown},
		{custom, 409, false, model.Conflict},
		{custom, 425, false, model.InFlight},
		{custom, 503, false, model.InFlight}, // a contract status wins over the 5xx rule
		{custom, 422, false, model.Invalid},
		{custom, 500, false, model.Unknown},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%v status=%d id=%v", tt.contract.Statuses, tt.status, tt.hasID)
		t.Run(name, func(t *testing.T) {
			if got := reference.Read(tt.contract, bodiless(tt.status, tt.hasID)).Kind; got != tt.want {
				t.Errorf("Read = %s, want %s", got, tt.want)
			}
		})
	}
}

// bodiless is an answer with a status, and an ID or none.
func bodiless(status int, hasID bool) model.Answer {
	a := model.Answer{Status: status}
	if hasID {
		a.ID = "7"
	}
	return a
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
	if got := reference.Read((model.Contract{}), bodiless(422, false)).Kind; got != model.Other {
		t.Errorf("zero contract classifies 422 as %s", got)
	}
	if got := reference.Read((model.Contract{}).WithDefaults(), bodiless(422, false)).Kind; got != model.Conflict {
		t.Errorf("defaulted contract classifies 422 as %s", got)
	}
}
