package contract

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/process"
)

// A crash lands at the last effect table's write: effects given by a query
// after it are never cut off from it, and the run says so; with the last
// effect a table, or no fault that lands there, it says nothing.
func TestQueryAfterCrashTableNoted(t *testing.T) {
	orders := effect.Effect{Table: "orders"}
	lines := effect.Effect{Table: "order_lines", Query: "SELECT 1"}
	for _, tc := range []struct {
		faults  []model.Fault
		effects []effect.Effect
		noted   bool
	}{
		{[]model.Fault{model.FaultCrash}, []effect.Effect{orders, lines}, true},
		{[]model.Fault{model.FaultDBError}, []effect.Effect{orders, lines}, true},
		{[]model.Fault{model.FaultCrash}, []effect.Effect{lines, orders}, false},
		{[]model.Fault{model.FaultLoseReply}, []effect.Effect{orders, lines}, false},
		{[]model.Fault{model.FaultCrash}, []effect.Effect{orders}, false},
	} {
		n := Spec{Faults: tc.faults, Effects: tc.effects}.QueryAfterCrashTable()
		if tc.noted != (n != "") || (tc.noted && !strings.Contains(n, "order_lines") || tc.noted && !strings.Contains(n, "write to orders")) {
			t.Errorf("faults %v, effects %v: note %q, want noted %v", tc.faults, tc.effects, n, tc.noted)
		}
	}
}

// What a fault kind needs is read from model's registry: each need
// missing is refused with what it is, and a contract that has them all is
// accepted.
func TestFaultNeedsFromTheRegistry(t *testing.T) {
	effects := []effect.Effect{{Table: "tickets"}}
	two := &process.Spec{Replicas: 2}
	for _, tc := range []struct {
		name   string
		spec   Spec
		target client.Target
		want   string
	}{
		{"pause-key-record on one replica", Spec{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: &process.Spec{Replicas: 1}, KeyTable: "keys", Effects: effects}, nil, "needs process.replicas of 2"},
		{"pause-key-record without key_table", Spec{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: two, Effects: effects}, nil, "needs key_table"},
		{"pause-key-record with effects only by query", Spec{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: two, KeyTable: "keys", Effects: []effect.Effect{{Table: "t", Query: "SELECT 1"}}}, nil, "needs an effect table"},
		{"pause-key-record with all it needs", Spec{Faults: []model.Fault{model.FaultPauseKeyRecord}, Process: two, KeyTable: "keys", Effects: effects}, nil, ""},
		{"crash-after-commit of a Go target", Spec{Faults: []model.Fault{model.FaultCrashAfterCommit}, Process: two, Effects: effects}, client.Func(nil), "needs an HTTP target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.checkFaults(tc.target)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want it to say %q", err, tc.want)
			}
		})
	}
}
