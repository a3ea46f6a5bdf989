package model

import (
	"slices"
	"testing"
)

// A replica has stopped once a restart, a crash or its own exit ended;
// a fault that did not fire, or one done to a dependency, stops none.
func TestReplicaStops(t *testing.T) {
	h := History{Faults: []FaultEvent{
		{Kind: FaultRestart, Start: 10, End: 20, Fired: true},
		{Kind: FaultCrash, Start: 30, End: 31, Fired: true},
		{Kind: FaultExit, Start: 40, End: 45, Fired: true},
		{Kind: FaultCrash, Start: 50, End: 51},
		{Kind: FaultDepRestart, Start: 60, End: 70, Fired: true, Target: "redis"},
		{Kind: FaultLoseReply, Start: 80, End: 81, Fired: true},
	}}
	if got, want := h.ReplicaStops(), []int64{20, 31, 45}; !slices.Equal(got, want) {
		t.Errorf("ReplicaStops() = %v, want %v", got, want)
	}
}
