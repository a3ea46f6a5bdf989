package model_test

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// A history reads in the order things started, each fault before the
// calls that started with it or after it; TouchedBy finds the fault that
// reached a call.
func TestHistoryEvents(t *testing.T) {
	h := model.History{
		Ops: []model.Op{{Start: 5}, {Start: 20}, {Start: 30}},
		Faults: []model.FaultEvent{
			{Kind: model.FaultCrash, Start: 5, Fired: true, Ops: []int{0, 1}},
			{Kind: model.FaultRestart, Start: 25, Fired: true},
		},
	}
	var got []string
	for _, ev := range h.Events() {
		if ev.Fault != nil {
			got = append(got, string(ev.Fault.Kind))
		} else {
			got = append(got, "op"+string(rune('0'+ev.Index)))
		}
	}
	if want := "crash op0 op1 restart op2"; join(got) != want {
		t.Errorf("events %q, want %q", join(got), want)
	}
	if ev, ok := h.TouchedBy(1); !ok || ev.Kind != model.FaultCrash {
		t.Errorf("call 1: touched by %v %v, want the crash", ev, ok)
	}
	if _, ok := h.TouchedBy(2); ok {
		t.Errorf("call 2: touched, want untouched")
	}
	for ev, want := range map[*model.FaultEvent]string{
		&h.Faults[0]: "crash fired, touched calls 1, 2",
		&h.Faults[1]: "restart fired",
		{Kind: model.FaultDBStall, Note: "no lock"}:                       "db-stall not fired (no lock)",
		{Kind: "dep-restart", Target: "redis", Fired: true}:               "dep-restart redis fired",
		{Kind: model.FaultLoseReply, Fired: true, Ops: []int{3}, Held: 0}: "lose-reply fired, touched call 4",
	} {
		if got := ev.String(); got != want {
			t.Errorf("%#v: %q, want %q", *ev, got, want)
		}
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
