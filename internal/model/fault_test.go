package model_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

func TestFaultRendering(t *testing.T) {
	p := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: model.FaultCrash}}},
		{Kind: model.StepRestart},
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}},
	}}
	if got, want := p.Compact(), "A/k1 v0 [crash]; restart; A/k1 v0"; got != want {
		t.Errorf("Compact() = %q, want %q", got, want)
	}
}
