package engine

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// The search draws plans outside rapid.Check and has rapid shrink a failing
// one by running a rapid.Check of one case with the plan's seed: this only
// works while rapid's first case is the plan Generator.Example draws.
func TestPlanSeedIsRapidsFirstCase(t *testing.T) {
	w := gen.DefaultWorld()
	// The dealt plans' seeds too, in a world with faults: the seed a run
	// records for plan i is the one rapid shrinks from.
	fw := w
	// Each drawn in its deal's world, a point's and a failure's among them.
	fw.Faults, fw.Restart, fw.FollowUp = []model.Fault{model.FaultLoseReply, model.FaultCrash, model.FaultDBError, model.FaultCrashAt}, true, true
	fw.Points, fw.RetryPoints, fw.Codes = []string{"before statement 1", "after commit 1"}, []string{"after statement 1"}, []string{"40001"}
	deals := gen.Deals(fw)
	for i := range 20 + len(deals) {
		seed, w := DeriveSeed(42, i), w
		if i >= 20 {
			seed, w, _ = planAt(fw, deals, 42, i-20)
		}
		rapidMu.Lock()
		if err := borrowRapid(seed); err != nil {
			rapidMu.Unlock()
			t.Fatal(err)
		}
		var first *model.Plan
		var rt tb
		rapid.Check(&rt, func(t *rapid.T) {
			p := gen.Plan(w).Draw(t, "plan")
			if first == nil {
				first = &p
			}
		})
		giveBackRapid()
		rapidMu.Unlock()
		if first == nil {
			t.Fatalf("seed %d: rapid ran no case", seed)
		}
		if want := drawPlan(w, seed); first.String() != want.String() {
			t.Fatalf("seed %d: rapid's first case\n%s\nthe search's plan\n%s", seed, first, want)
		}
	}
}

// A run's plans depend on its seed and their index only.
func TestPlanSeeds(t *testing.T) {
	w := gen.DefaultWorld()
	seen := map[string]bool{}
	for i := range 50 {
		a, b := drawPlan(w, DeriveSeed(7, i)), drawPlan(w, DeriveSeed(7, i))
		if a.String() != b.String() {
			t.Fatalf("plan %d drawn twice differs:\n%s\n%s", i, a, b)
		}
		seen[a.String()] = true
	}
	if len(seen) < 40 {
		t.Errorf("50 plans of one run, only %d distinct", len(seen))
	}
	if DeriveSeed(7, 1) == DeriveSeed(8, 0) || DeriveSeed(7, 0) == DeriveSeed(8, 0) {
		t.Errorf("neighbouring seeds share plan seeds")
	}
}

// The first plans of a run are dealt the world's faults, one each: plan i
// carries deal i whichever seed the run has, its seed draws it, and the
// plans after the deals are the ones DeriveSeed draws. Without the deal,
// a run of a few plans leaves kinds undrawn (counted below, so the test
// shows it is needed).
func TestFirstPlansAreDealtEveryFault(t *testing.T) {
	w := gen.DefaultWorld()
	w.Faults = []model.Fault{model.FaultLoseReply, model.FaultCrash, model.FaultPauseKeyRecord, model.FaultDBError, model.FaultDelay}
	w.Restart = true
	w.StepFaults = []model.Step{{Kind: model.StepFault, Fault: model.FaultDepRestart, Target: "redis"}}
	deals := gen.Deals(w)
	if len(deals) != 7 {
		t.Fatalf("deals %v; want the 5 call faults, restart and the dependency's fault", deals)
	}
	undealt := 0
	for seed := range uint64(30) {
		for i, d := range deals {
			if !d.In(drawPlan(w, DeriveSeed(seed, i))) {
				undealt++
			}
			s, dw, p := planAt(w, deals, seed, i)
			if !d.In(p) {
				t.Fatalf("seed %d: plan %d does not carry %v:\n%s", seed, i, d, p)
			}
			if q := drawPlan(dw, s); q.String() != p.String() {
				t.Fatalf("seed %d: plan %d is not the plan its seed draws:\n%s\n%s", seed, i, p, q)
			}
		}
		i := len(deals)
		if s, _, p := planAt(w, deals, seed, i); s != DeriveSeed(seed, i) || p.String() != drawPlan(w, s).String() {
			t.Fatalf("seed %d: plan %d, after the deals, has another seed", seed, i)
		}
	}
	if undealt < 30 {
		t.Errorf("without the deal only %d of 210 plans missed their fault; the test no longer shows the deal is needed", undealt)
	}
}

// Every point is dealt a plan that carries it, a first call's and a
// retry's alike, in a world that plans every kind (a default run), though
// drawn in that world a plan names the rarest of sixteen points less than
// once in 500 draws: the plan is drawn in the deal's world, which names
// the dealt point, and is the plan its seed draws there.
func TestFirstPlansAreDealtEveryPoint(t *testing.T) {
	w := gen.DefaultWorld()
	for _, k := range faultkind.Kinds() {
		if k.Scope == faultkind.OnCall {
			w.Faults = append(w.Faults, k.Name)
		}
	}
	w.Restart, w.FollowUp = true, true
	for i := range 10 {
		w.Points = append(w.Points, fmt.Sprintf("before statement %d", i+1))
	}
	for i := range 6 {
		w.RetryPoints = append(w.RetryPoints, fmt.Sprintf("after statement %d", i+1))
	}
	w.Codes = []string{"40001", "40P01", "57P01", "08006"}
	deals := gen.Deals(w)
	for seed := range uint64(10) {
		for i, d := range deals {
			if d.Point == "" {
				continue
			}
			s, dw, p := planAt(w, deals, seed, i)
			if !d.In(p) {
				t.Errorf("seed %d: plan %d does not carry %s %s:\n%s", seed, i, d.Fault, d.Point, p)
			}
			if q := drawPlan(dw, s); q.String() != p.String() {
				t.Fatalf("seed %d: plan %d is not the plan its seed draws in its world:\n%s\n%s", seed, i, p, q)
			}
			// Found within a few draws, not by luck in thousands.
			if !slices.ContainsFunc(seedsUpTo(DeriveSeed(seed, i), 100), func(x uint64) bool { return x == s }) {
				t.Errorf("seed %d: plan %d (%s %s) was not among the first 100 draws", seed, i, d.Fault, d.Point)
			}
		}
	}
}

// seedsUpTo are the first n seeds planAt tries from s: s, then those
// derived from it.
func seedsUpTo(s uint64, n int) []uint64 {
	out := []uint64{s}
	for j := range n - 1 {
		out = append(out, DeriveSeed(s, j))
	}
	return out
}
