package coverage_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
)

// Issue 27.1: a crash that fired is not IDEM-012's transition. Only a
// retry of the crashed action that the recovery time decides is: one
// answered other than in_flight (the key was released), or one still sent
// past the recovery time after the crash cut the action off.
func TestRecoveredRetry(t *testing.T) {
	second := int64(time.Second)
	crashed := covOp("A", "k1", p, 0, 100)
	crashed.Call.Fault = model.FaultCrash
	crashed.Out = model.Outcome{Kind: model.Unknown, Err: "EOF"}
	inFlight := func(start int64) model.Op {
		op := covOp("A", "k1", p, start, start+10)
		op.Out = model.Outcome{Kind: model.InFlight, Status: 409}
		return op
	}
	crash := func(fired bool) []model.FaultEvent {
		return []model.FaultEvent{{Kind: model.FaultCrash, Fired: fired, Start: 0, End: 100, Ops: []int{0}},
			{Kind: model.FaultRestart, Step: 1, Start: 110, End: 190, Fired: true}}
	}
	c := model.DefaultContract()
	c.Recovery = time.Second
	noRecovery := model.DefaultContract()
	noRecovery.Recovery = 0 // a Go caller's contract without WithDefaults: IDEM-012 cannot fire
	tests := []struct {
		name     string
		contract model.Contract
		ops      []model.Op
		faults   []model.FaultEvent
		want     int
	}{
		{"a crash never retried", c, []model.Op{crashed}, crash(true), 0},
		{"another action retried", c, []model.Op{crashed, covOp("A", "k2", p, 200, 210)}, crash(true), 0},
		{"a retry answered in_flight within the recovery time, never followed up", c, []model.Op{crashed, inFlight(200)}, crash(true), 0},
		{"a retry answered ok: the key was released", c, []model.Op{crashed, covOp("A", "k1", p, 200, 210)}, crash(true), 1},
		{"in_flight until past the recovery time", c, []model.Op{crashed, inFlight(200), inFlight(100 + second + 1)}, crash(true), 1},
		{"a crash that did not fire", c, []model.Op{crashed, covOp("A", "k1", p, 200, 210)}, crash(false), 0},
		{"no recovery time", noRecovery, []model.Op{crashed, covOp("A", "k1", p, 200, 210)}, crash(true), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := model.History{Ops: tc.ops, Faults: tc.faults}
			got := coverage.Exercised(coverage.Exercise{Contract: tc.contract, History: h})
			if got[coverage.RecoveredRetry] != tc.want {
				t.Errorf("%s: %d, want %d (coverage %v)", coverage.RecoveredRetry, got[coverage.RecoveredRetry], tc.want, got)
			}
		})
	}
}
