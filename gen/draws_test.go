package gen_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
)

// A world that uses none of issue 26's draws (keyless creates, unique
// values, refused-then-fixed calls, a contract's key shapes) draws the
// plans it drew before them, seed for seed: old seeds and case files
// replay the plans they found. The digest was taken before those draws
// were added (commit cdef12b).
func TestOldWorldsDrawTheirOldPlans(t *testing.T) {
	w := gen.DefaultWorld()
	w.KeyShapes, w.Restart = true, true
	w.Noise = []model.Noise{model.NoiseQuery}
	w.Faults = []model.Fault{model.FaultLoseReply, model.FaultDoubleDelivery, model.FaultDBError}
	w.StepFaults = []model.Step{{Kind: model.StepFault, Fault: model.FaultDBError, Target: "db"}}
	h := sha256.New()
	g := gen.Plan(w)
	for i := range 300 {
		b, err := json.Marshal(g.Example(i))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	if got, want := fmt.Sprintf("%x", h.Sum(nil))[:16], "adfe05301a85ff2c"; got != want {
		t.Errorf("plans of an old world drew digest %s, want %s: a new draw changed the plans old seeds draw", got, want)
	}
}
