package engine

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
)

// Plans run at once only under faults that touch nothing the others
// share: a fault of the processes, a dependency or a whole table makes
// them run one at a time, and the run says why.
func TestWorkersUnderSharedFaults(t *testing.T) {
	for _, tc := range []struct {
		fault model.Fault
		want  int
		note  string
	}{
		{model.FaultLoseReply, 4, ""},
		{model.FaultCrash, 1, "the crash fault acts on the service's processes"},
		{model.FaultDepRestart, 1, "the dep-restart fault acts on the service's dependencies"},
		{model.FaultDBError, 1, "the db-error fault acts on a whole effect table"},
	} {
		r := &runner{cfg: Settings{Workers: 4, Spec: contract.Spec{Faults: []model.Fault{tc.fault}}}}
		got := r.workers()
		if got != tc.want || (tc.note == "") != (len(r.notes) == 0) || tc.note != "" && !strings.Contains(r.notes[0], tc.note) {
			t.Errorf("%s: %d workers, notes %q; want %d, a note saying %q", tc.fault, got, r.notes, tc.want, tc.note)
		}
	}
}
