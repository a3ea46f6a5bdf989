package shrink

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// Faults, bursts and restarts are never shared: two races stay two bugs.
func TestSharedIngredientsAreInputs(t *testing.T) {
	race := model.Plan{Steps: []model.Step{burstOf(a1, a1)}}
	if common, _ := SharedIngredients(race, race); len(common) != 0 {
		t.Errorf("two races share %v", common)
	}
	b := model.Call{Tenant: "B", Key: "k1"}
	leak := model.Plan{Steps: []model.Step{callOf(a1), callOf(b)}}
	lost := a1
	lost.Fault = model.FaultLoseReply
	leakInBurst := model.Plan{Steps: []model.Step{callOf(lost), burstOf(b, a1)}}
	common, extra := SharedIngredients(leak, leakInBurst)
	var names []string
	for _, in := range slices.Concat(common, extra) {
		names = append(names, in.Name)
	}
	if !slices.Equal(names, []string{"other tenant", "fault", "burst"}) {
		t.Errorf("shared and extra %q, want other tenant shared, fault and burst extra", names)
	}
}
