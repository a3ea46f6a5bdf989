package checks

import (
	"fmt"

	"github.com/idemstress/idemstress/internal/model"
)

// exitChecks reports each replica that exited on its own during the plan
// (a model.FaultExit event of the history): a service that dies under a
// passing fault, a database session ended or a reply lost, is a finding
// about the service (IDEM-018), however it answered before. The message
// names the fault that preceded the exit, the detail the call it touched
// and the replica's exit status and last output (the event's note).
func exitChecks(c model.Contract, h model.History) []Violation {
	var vs []Violation
	for i, ev := range h.Faults {
		if ev.Kind != model.FaultExit {
			continue
		}
		before, ok := precedingFault(h, i)
		what, after := "a replica exited on its own, with no fault of idemstress's before it", "no fault"
		if ok {
			what = fmt.Sprintf("a replica exited on its own after a %s fault", before.Kind)
			after = before.String()
		}
		a, call := exitAction(c, h, ev, before)
		vs = append(vs, violation(ReplicaExited, a, what,
			fmt.Sprintf("after %s (call %s): %s", after, call, ev.Note)))
	}
	return vs
}

// precedingFault is the latest fault event before the exit event i that is
// no exit itself: the fault the service died of, most likely.
func precedingFault(h model.History, i int) (model.FaultEvent, bool) {
	for j := i - 1; j >= 0; j-- {
		if ev := h.Faults[j]; ev.Kind != model.FaultExit && ev.Start <= h.Faults[i].Start {
			return ev, true
		}
	}
	return model.FaultEvent{}, false
}

// exitAction is the action an exit is reported under, and its call: the
// first call the preceding fault touched, else the first the exit
// touched, else the last call started before the exit.
func exitAction(c model.Contract, h model.History, exit, before model.FaultEvent) (model.Action, string) {
	idx := -1
	switch {
	case len(before.Ops) > 0:
		idx = before.Ops[0]
	case len(exit.Ops) > 0:
		idx = exit.Ops[0]
	default:
		for i, op := range h.Ops {
			if op.Start <= exit.Start {
				idx = i
			}
		}
	}
	if idx < 0 || idx >= len(h.Ops) {
		return model.Action{}, "none"
	}
	op := h.Ops[idx]
	if op.Call.NoKey {
		return model.Action{Tenant: op.Call.Tenant}, op.Call.String()
	}
	return c.ActionOf(op.Call), op.Call.String()
}
