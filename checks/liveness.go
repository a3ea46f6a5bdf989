package checks

import (
	"fmt"

	"github.com/idemstress/idemstress/internal/model"
)

// stuckChecks finds retries that still answer in_flight long after every
// other call of the action that began before the answer was gone:
// answered, or given up on (a crash ends a call too). A call sent with it
// counts, whichever started first: a service that serializes a key's
// replays too answers one of two concurrent duplicates in_flight. Calls
// that were themselves answered in_flight held nothing: a retry polled
// again and again is stuck as long after the last call that may have done
// the work. A correct target releases a key within
// the contract's recovery time; a key stuck in progress forever is a bug
// (IDEM-012).
func stuckChecks(c model.Contract, a model.Action, ops []model.Op) []Violation {
	if c.Recovery <= 0 {
		return nil
	}
	var vs []Violation
	for i, op := range ops {
		if op.Out.Kind != model.InFlight {
			continue
		}
		gone, earlier := int64(0), false
		for j, other := range ops {
			if j != i && other.Start < op.End && other.Out.Kind != model.InFlight {
				gone, earlier = max(gone, other.End), true
			}
		}
		if earlier && op.Start-gone > int64(c.Recovery) {
			vs = append(vs, violation(StuckAction, a, "a retry answered in_flight after the recovery time, with no other call of the action left",
				fmt.Sprintf("call %s got in_flight %.1fs after the action's last other call ended (recovery %s)",
					op.Call, float64(op.Start-gone)/1e9, c.Recovery)))
		}
	}
	return vs
}
