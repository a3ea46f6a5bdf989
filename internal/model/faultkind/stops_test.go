package faultkind

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// A replica has stopped once a restart, a crash or its own exit ended;
// a fault that did not fire, or one done to a dependency, stops none.
func TestReplicaStops(t *testing.T) {
	h := model.History{Faults: []model.FaultEvent{
		{Kind: model.FaultRestart, Start: 10, End: 20, Fired: true},
		{Kind: model.FaultCrash, Start: 30, End: 31, Fired: true},
		{Kind: model.FaultExit, Start: 40, End: 45, Fired: true},
		{Kind: model.FaultCrash, Start: 50, End: 51},
		{Kind: model.FaultDepRestart, Start: 60, End: 70, Fired: true, Target: "redis"},
		{Kind: model.FaultLoseReply, Start: 80, End: 81, Fired: true},
	}}
	if got, want := ReplicaStops(h), []int64{20, 31, 45}; !slices.Equal(got, want) {
		t.Errorf("ReplicaStops() = %v, want %v", got, want)
	}
}
