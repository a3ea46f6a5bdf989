package shrink

import (
	"reflect"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// The key whose unique values a call sends (Call.UniqueOf) is a key of the
// plan like the others: renaming renames it with them, a merge of two keys
// merges it too, a sub-plan matches it under the same renaming, and a
// simpler call sends its own values.
func TestUniqueOfShrinks(t *testing.T) {
	of := func(c model.Call, holder string) model.Call { c.UniqueOf = holder; return c }
	plan := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{call("A", "k3", 0)}},
		{Kind: model.StepCall, Calls: []model.Call{of(call("A", "k2", 0), "k3")}},
		{Kind: model.StepCall, Calls: []model.Call{of(call("A", "k3", 0), "k4")}},
	}}
	want := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{call("A", "k1", 0)}},
		{Kind: model.StepCall, Calls: []model.Call{of(call("A", "k2", 0), "k1")}},
		{Kind: model.StepCall, Calls: []model.Call{of(call("A", "k1", 0), "k3")}},
	}}
	if got := Renamed(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("renamed\n%s=\n%swant\n%s", plan, got, want)
	}
	if got := WithKey(plan, "k3", "k1"); got.Steps[1].Calls[0].UniqueOf != "k1" || got.Steps[2].Calls[0].Key != "k1" {
		t.Errorf("withKey k3 → k1:\n%s", got)
	}
	if !SubPlan(model.Plan{Steps: want.Steps[:2]}, plan) {
		t.Errorf("the first two steps, renamed, are no sub-plan of the plan")
	}
	if SubPlan(model.Plan{Steps: []model.Step{want.Steps[0], {Kind: model.StepCall, Calls: []model.Call{call("A", "k2", 0)}}}}, plan) {
		t.Errorf("a call with its own values matched one with another's")
	}
	if !slices.Contains(SimplerCalls(of(call("A", "k2", 0), "k1")), call("A", "k2", 0)) {
		t.Errorf("no simpler call sends its own values")
	}
}
