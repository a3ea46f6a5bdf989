package gen_test

import (
	"fmt"
	"testing"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// everyKind is a world that plans every fault kind a call or a step may
// carry, with the points and failures the sample's Redis design has (a
// dozen points of a first call's work, Redis's among them, six of a
// retry's, four failures): the world of a default run, where drawing a
// point by chance left one or two untried.
func everyKind() gen.World {
	w := gen.DefaultWorld()
	for _, k := range faultkind.Kinds() {
		if k.Scope == faultkind.OnCall {
			w.Faults = append(w.Faults, k.Name)
		}
	}
	w.Restart, w.FollowUp, w.Unique, w.Broken = true, true, true, 2
	w.StepFaults = []model.Step{{Kind: model.StepFault, Fault: model.FaultDepRestart, Target: "redis"}, {Kind: model.StepFault, Fault: model.FaultDepCrash, Target: "redis"}}
	for i := range 4 {
		w.Points = append(w.Points, fmt.Sprintf("before statement %d", i+1), fmt.Sprintf("after statement %d", i+1))
	}
	w.Points = append(w.Points, "before redis SET 1", "after redis SET 1", "before redis SET 2", "after redis SET 2", "before commit 1", "after commit 1")
	w.RetryPoints = []string{"before statement 1", "after statement 1", "before redis GET 1", "after redis GET 1", "before commit 1", "after commit 1"}
	w.Codes = []string{"40001", "40P01", "57P01", "08006"}
	return w
}

// A deal's world plans its fault alone and names the dealt point (or
// failure) on every call that draws it, a first call's or a retry's as the
// deal says: a plan of that world carries the deal whenever it carries the
// fault with the transition the deal asks for: one plan in four (alone,
// one in twenty) however many kinds and points the run plans, where drawn
// in the run's world one plan of a hundred carries a kind with a retry and
// fewer than one of three hundred a point. A restart's and a fault step's deals draw in the run's world.
func TestDealWorldNamesItsPoint(t *testing.T) {
	w := everyKind()
	const seeds = 300
	points := 0
	for _, d := range gen.Deals(w) {
		dw := d.World(w)
		if d.Fault == model.FaultRestart || d.Target != "" {
			if gen.Plan(dw).Example(3).String() != gen.Plan(w).Example(3).String() {
				t.Errorf("%s %s: its deal changed the world", d.Fault, d.Target)
			}
			continue
		}
		if d.Point != "" {
			points++
		}
		kind := d
		kind.Point = ""
		carried, byChance := 0, 0
		for seed := range seeds {
			p := gen.Plan(dw).Example(seed)
			for _, s := range p.Steps {
				for _, c := range s.Calls {
					if c.Fault != model.FaultNone && (c.Fault != d.Fault || d.Point != "" && c.Point != d.Point) {
						t.Fatalf("%s %s: a call of its world carries %s %q:\n%s", d.Fault, d.Point, c.Fault, c.Point, p)
					}
				}
			}
			if d.In(p) != kind.In(p) {
				t.Fatalf("%s %s: in the plan %v, its fault %v:\n%s", d.Fault, d.Point, d.In(p), kind.In(p), p)
			}
			if d.In(p) {
				carried++
			}
			if d.In(gen.Plan(w).Example(seed)) {
				byChance++
			}
		}
		if carried < seeds/30 {
			t.Errorf("%s %q: %d plans of %d carry it in its world; want one in twenty or more", d.Fault, d.Point, carried, seeds)
		}
		if byChance*4 > carried {
			t.Errorf("%s %q: %d plans of the run's world carry it, %d of its own: the test does not show the deal's world is needed", d.Fault, d.Point, byChance, carried)
		}
	}
	if want := len(w.Points) + len(w.RetryPoints) + len(w.Codes); points != want {
		t.Errorf("%d deals name a point or failure, want %d", points, want)
	}
}
