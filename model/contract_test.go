package model_test

import (
	"fmt"
	"testing"

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
