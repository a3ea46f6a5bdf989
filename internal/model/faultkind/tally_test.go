package faultkind_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

func TestTallyAndAllFired(t *testing.T) {
	events := []model.FaultEvent{
		{Kind: model.FaultLoseReply, Fired: true},
		{Kind: model.FaultLoseReply, Fired: false, Note: "the target did not answer"},
		{Kind: model.FaultRestart, Fired: true},
	}
	counts := map[model.Fault]faultkind.FaultCount{}
	faultkind.Tally(counts, events)
	faultkind.Tally(counts, events[2:])
	want := map[model.Fault]faultkind.FaultCount{model.FaultLoseReply: {Planned: 2, Fired: 1}, model.FaultRestart: {Planned: 2, Fired: 2}}
	if len(counts) != len(want) || counts[model.FaultLoseReply] != want[model.FaultLoseReply] || counts[model.FaultRestart] != want[model.FaultRestart] {
		t.Errorf("counts %v, want %v", counts, want)
	}
	if got := faultkind.FaultsFired(counts); got != 3 {
		t.Errorf("Fired(%v) = %d, want 3 (the lose-reply that did not fire left out)", counts, got)
	}
	if got := faultkind.FaultsFired(nil); got != 0 {
		t.Errorf("Fired(nil) = %d", got)
	}
	if faultkind.AllFired(events) {
		t.Error("AllFired with a lose-reply that did not fire")
	}
	if !faultkind.AllFired(events[2:]) || !faultkind.AllFired(nil) {
		t.Error("not AllFired when every fault fired")
	}
}
