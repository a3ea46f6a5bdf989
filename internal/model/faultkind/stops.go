package faultkind

import (
	"github.com/idemstress/idemstress/internal/model"
)

// ReplicaStops are the times (on the clock of Op.Start) a replica of the
// service had stopped during the history: the end of a restart, a crash,
// or an exit of its own. What a replica held in memory, such as a
// delivery it was still retrying, is gone after each; a replica shutting
// down gracefully may still send until then.
func ReplicaStops(h model.History) []int64 {
	var out []int64
	for _, ev := range h.Faults {
		if ev.Fired && ev.Target == "" && (ev.Kind == model.FaultRestart || ev.Kind == model.FaultExit || Crashes(ev.Kind)) {
			out = append(out, ev.End)
		}
	}
	return out
}
