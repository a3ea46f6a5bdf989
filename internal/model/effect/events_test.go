package effect

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// An at-least-once event is open until an attempt is accepted, unless a
// replica stopped after its last attempt; exactly-once has none.
func TestOpenEvents(t *testing.T) {
	s := Sink{Name: "hooks", Key: "/key", Delivery: AtLeastOnce, EventID: "/id"}
	at := func(id string, time int64, accepted bool) model.Delivery {
		return model.Delivery{Sink: "hooks", Time: time, Body: model.Body(`{"id":"` + id + `"}`), Accepted: accepted}
	}
	ds := []model.Delivery{at("e1", 1, false), at("e2", 2, false), at("e3", 3, false), at("e1", 4, true), at("e3", 9, false)}
	for _, tc := range []struct {
		stops []int64
		want  []string
	}{
		{nil, []string{"e2", "e3"}},
		{[]int64{5}, []string{"e3"}},       // e2's sender stopped after its attempt
		{[]int64{10}, nil},                 // both senders stopped
		{[]int64{1}, []string{"e2", "e3"}}, // a stop before the attempts leaves them open
	} {
		if got := OpenEvents(s, ds, tc.stops); !slices.Equal(got, tc.want) {
			t.Errorf("OpenEvents(stops %v) = %v, want %v", tc.stops, got, tc.want)
		}
	}
	s.Delivery, s.EventID = ExactlyOnce, ""
	if got := OpenEvents(s, ds, nil); got != nil {
		t.Errorf("exactly-once: OpenEvents = %v, want none", got)
	}
}
