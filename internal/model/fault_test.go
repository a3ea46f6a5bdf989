package model_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

func TestTallyAndAllFired(t *testing.T) {
	events := []model.FaultEvent{
		{Kind: model.FaultLoseReply, Fired: true},
		{Kind: model.FaultLoseReply, Fired: false, Note: "the target did not answer"},
		{Kind: model.FaultRestart, Fired: true},
	}
	counts := map[model.Fault]model.FaultCount{}
	model.Tally(counts, events)
	model.Tally(counts, events[2:])
	want := map[model.Fault]model.FaultCount{model.FaultLoseReply: {Planned: 2, Fired: 1}, model.FaultRestart: {Planned: 2, Fired: 2}}
	if len(counts) != len(want) || counts[model.FaultLoseReply] != want[model.FaultLoseReply] || counts[model.FaultRestart] != want[model.FaultRestart] {
		t.Errorf("counts %v, want %v", counts, want)
	}
	if got := model.FaultsFired(counts); got != 3 {
		t.Errorf("Fired(%v) = %d, want 3 (the lose-reply that did not fire left out)", counts, got)
	}
	if got := model.FaultsFired(nil); got != 0 {
		t.Errorf("Fired(nil) = %d", got)
	}
	if model.AllFired(events) {
		t.Error("AllFired with a lose-reply that did not fire")
	}
	if !model.AllFired(events[2:]) || !model.AllFired(nil) {
		t.Error("not AllFired when every fault fired")
	}
}

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
