package effect

import (
	"slices"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// OpenEvents are the event IDs of deliveries ds to an at-least-once
// sink s that no attempt got accepted while their sender still stood: a
// correct service sends each of them again under its ID. An event whose
// last attempt came before a replica stopped (stops, ReplicaStops) is
// not open: its retries, if held in memory, died with the process.
// Under exactly-once there are none: an attempt has no ID to follow.
func OpenEvents(s Sink, ds []model.Delivery, stops []int64) []string {
	if s.Mode() != AtLeastOnce {
		return nil
	}
	last := map[string]int64{}
	var order, taken []string
	for _, d := range ds {
		id, _ := payloads.Pointer(d.Body, s.EventID)
		if _, ok := last[id]; !ok {
			order = append(order, id)
		}
		last[id] = d.Time
		if d.Accepted {
			taken = append(taken, id)
		}
	}
	var open []string
	for _, id := range order {
		stopped := slices.ContainsFunc(stops, func(at int64) bool { return at >= last[id] })
		if !slices.Contains(taken, id) && !stopped {
			open = append(open, id)
		}
	}
	return open
}
