package gen_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
)

// Under a world with unique fields some calls, single or in a burst, send
// another key's unique values, never their own key's; without it none do.
func TestPlansTakeOtherActionsValues(t *testing.T) {
	for _, unique := range []bool{false, true} {
		w := gen.DefaultWorld()
		w.Unique = unique
		single, raced := 0, 0
		rapid.Check(t, func(t *rapid.T) {
			p := gen.Plan(w).Draw(t, "plan")
			for _, s := range p.Steps {
				for _, c := range s.Calls {
					switch {
					case c.UniqueOf == "":
					case !unique:
						t.Fatalf("call %s sends another action's values in a world without unique fields", c)
					case c.NoKey || model.PlainKey(c.UniqueOf) == model.PlainKey(c.Key):
						t.Fatalf("call %s sends its own key's values as another's", c)
					case s.Kind == model.StepBurst:
						raced++
					default:
						single++
					}
				}
			}
		})
		if unique && (single == 0 || raced == 0) {
			t.Errorf("unique world: %d single and %d burst calls sent another action's values; want some of each", single, raced)
		}
	}
}
