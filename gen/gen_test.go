package gen_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// checkBounds fails t when a plan leaves the world it was drawn from.
func checkBounds(t *rapid.T, w gen.World, p model.Plan) {
	t.Helper()
	if len(p.Steps) < 1 || len(p.Steps) > w.MaxSteps {
		t.Fatalf("plan has %d steps, want 1..%d:\n%s", len(p.Steps), w.MaxSteps, p)
	}
	tenants, keys := map[string]bool{}, map[string]bool{}
	for i := 0; i < w.MaxTenants; i++ {
		tenants[gen.TenantName(i)] = true
	}
	for i := 0; i < w.MaxKeys; i++ {
		keys[gen.KeyName(i)] = true
	}
	for i, s := range p.Steps {
		switch {
		case s.Kind == model.StepCall && len(s.Calls) == 1:
		case s.Kind == model.StepBurst && w.MaxBurst >= 2 && len(s.Calls) >= 2 && len(s.Calls) <= w.MaxBurst:
		default:
			t.Fatalf("step %d is %q with %d calls, want one call or a burst of 2..%d:\n%s", i+1, s.Kind, len(s.Calls), w.MaxBurst, p)
		}
		for _, c := range s.Calls {
			checkCall(t, w, i, c, tenants, keys)
		}
	}
}

func checkCall(t *rapid.T, w gen.World, i int, c model.Call, tenants, keys map[string]bool) {
	t.Helper()
	switch {
	case !tenants[c.Tenant]:
		t.Fatalf("step %d: tenant %q outside the world's %d tenants", i+1, c.Tenant, w.MaxTenants)
	case !keys[model.PlainKey(c.Key)]:
		t.Fatalf("step %d: key %q outside the world's %d keys", i+1, c.Key, w.MaxKeys)
	case model.PlainKey(c.Key) != c.Key && !w.KeyShapes:
		t.Fatalf("step %d: key %q shaped in a world without key shapes", i+1, c.Key)
	case c.Noise != model.NoiseNone && !slices.Contains(w.Noise, c.Noise):
		t.Fatalf("step %d: noise %s outside the world's %v", i+1, c.Noise, w.Noise)
	case c.Variant < 0 || c.Variant >= w.MaxVariants:
		t.Fatalf("step %d: variant %d, want 0..%d", i+1, c.Variant, w.MaxVariants-1)
	case c.Encoding < 0 || c.Encoding >= payloads.NumEncodings:
		t.Fatalf("step %d: encoding %d, want 0..%d", i+1, c.Encoding, payloads.NumEncodings-1)
	case c.Fault != model.FaultNone:
		t.Fatalf("step %d: fault %q in a plan without faults", i+1, c.Fault)
	case c.NoKey && !w.KeyRequired:
		t.Fatalf("step %d: a call omits its key though the world does not require keys", i+1)
	case c.Broken < 0 || c.Broken > w.Broken:
		t.Fatalf("step %d: broken rule %d, want 0..%d", i+1, c.Broken, w.Broken)
	case c.Broken > 0 && c.NoKey:
		t.Fatalf("step %d: a broken call without its key", i+1)
	}
}

func TestPlanRespectsWorld(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := gen.World{
			MaxTenants:  rapid.IntRange(1, 26).Draw(t, "tenants"),
			MaxKeys:     rapid.IntRange(1, 12).Draw(t, "keys"),
			MaxVariants: rapid.IntRange(1, 5).Draw(t, "variants"),
			MaxSteps:    rapid.IntRange(1, 20).Draw(t, "steps"),
			KeyRequired: rapid.Bool().Draw(t, "key required"),
			MaxBurst:    rapid.SampledFrom([]int{0, 2, 3, 16}).Draw(t, "max burst"),
			Broken:      rapid.IntRange(0, 3).Draw(t, "broken"),
		}
		checkBounds(t, w, gen.Plan(w).Draw(t, "plan"))
	})
}

func TestPlanDefaultWorld(t *testing.T) {
	w := gen.DefaultWorld()
	if err := w.Validate(); err != nil {
		t.Fatalf("DefaultWorld().Validate() = %v", err)
	}
	rapid.Check(t, func(t *rapid.T) {
		checkBounds(t, w, gen.Plan(w).Draw(t, "plan"))
	})
}

// examples draws n plans from fixed seeds, so the statistics below are stable.
func examples(t *testing.T, w gen.World, n int) []model.Plan {
	t.Helper()
	g := gen.Plan(w)
	plans := make([]model.Plan, n)
	for i := range plans {
		plans[i] = g.Example(i)
	}
	return plans
}

// The generator exists to make calls collide: most plans of two calls or
// more must call one action twice.
func TestPlanCollides(t *testing.T) {
	plans := examples(t, gen.DefaultWorld(), 200)
	multi, colliding, keyless, variants := 0, 0, 0, map[int]bool{}
	for _, p := range plans {
		seen := map[model.Action]bool{}
		collides := false
		for _, s := range p.Steps {
			for _, c := range s.Calls {
				variants[c.Variant] = true
				if c.NoKey {
					keyless++
					continue
				}
				collides = collides || seen[c.Action()]
				seen[c.Action()] = true
			}
		}
		if p.NumCalls() >= 2 {
			multi++
			if collides {
				colliding++
			}
		}
	}
	t.Logf("%d of %d plans with two calls or more collide; %d keyless calls", colliding, multi, keyless)
	if multi < 100 {
		t.Errorf("only %d of 200 plans have two calls or more", multi)
	}
	if colliding*2 <= multi {
		t.Errorf("only %d of %d plans with two calls or more call one action twice", colliding, multi)
	}
	if keyless == 0 {
		t.Error("no call omits its key in a world that requires keys")
	}
	if len(variants) < 2 {
		t.Errorf("every call uses payload variant %v", variants)
	}
}

func TestPlanKeyNotRequired(t *testing.T) {
	w := gen.DefaultWorld()
	w.KeyRequired = false
	for i, p := range examples(t, w, 200) {
		for _, s := range p.Steps {
			for _, c := range s.Calls {
				if c.NoKey {
					t.Fatalf("plan %d: call %s omits its key though the world does not require keys", i, c)
				}
			}
		}
	}
}

// Where the key is optional (key_required: false) plans send keyless
// creates, and never with a fault: a lost reply, a second delivery or a
// slow original of a keyless call is another create by design.
func TestPlanKeylessCreates(t *testing.T) {
	w := gen.DefaultWorld()
	w.KeyRequired, w.Keyless = false, true
	w.Faults = []model.Fault{model.FaultLoseReply, model.FaultDoubleDelivery, model.FaultDBError}
	keyless, faulted := 0, 0
	for i, p := range examples(t, w, 200) {
		for _, s := range p.Steps {
			for _, c := range s.Calls {
				if c.Fault != model.FaultNone {
					faulted++
				}
				if !c.NoKey {
					continue
				}
				keyless++
				if c.Fault != model.FaultNone {
					t.Fatalf("plan %d: keyless call %s carries a fault", i, c)
				}
			}
		}
	}
	if keyless == 0 || faulted == 0 {
		t.Errorf("%d keyless calls, %d faulted calls in 200 plans; want some of each", keyless, faulted)
	}
}

func TestWorldValidate(t *testing.T) {
	valid := gen.DefaultWorld()
	tests := []struct {
		name string
		edit func(*gen.World)
		ok   bool
	}{
		{"default", func(*gen.World) {}, true},
		{"smallest", func(w *gen.World) { *w = gen.World{MaxTenants: 1, MaxKeys: 1, MaxVariants: 1, MaxSteps: 1} }, true},
		{"26 tenants", func(w *gen.World) { w.MaxTenants = 26 }, true},
		{"no tenants", func(w *gen.World) { w.MaxTenants = 0 }, false},
		{"27 tenants", func(w *gen.World) { w.MaxTenants = 27 }, false},
		{"no keys", func(w *gen.World) { w.MaxKeys = 0 }, false},
		{"negative keys", func(w *gen.World) { w.MaxKeys = -1 }, false},
		{"no variants", func(w *gen.World) { w.MaxVariants = 0 }, false},
		{"no steps", func(w *gen.World) { w.MaxSteps = 0 }, false},
		{"zero world", func(w *gen.World) { *w = gen.World{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := valid
			tt.edit(&w)
			err := w.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate(%+v) = %v, want ok=%v", w, err, tt.ok)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "gen: world") {
				t.Errorf("error %q does not say it is about the world", err)
			}
		})
	}
}

func TestNames(t *testing.T) {
	for i, want := range []string{"A", "B", "Z"} {
		if got := gen.TenantName([]int{0, 1, 25}[i]); got != want {
			t.Errorf("TenantName = %q, want %q", got, want)
		}
	}
	for i, want := range []string{"k1", "k2", "k10"} {
		if got := gen.KeyName([]int{0, 1, 9}[i]); got != want {
			t.Errorf("KeyName = %q, want %q", got, want)
		}
	}
}

// Plans are drawn inside a rapid property; rapid shrinks a failing plan
// toward fewer steps, tenant A, key k1, variant 0.
func ExamplePlan() {
	w := gen.World{MaxTenants: 2, MaxKeys: 2, MaxVariants: 2, MaxSteps: 4}
	if err := w.Validate(); err != nil {
		panic(err)
	}
	p := gen.Plan(w).Example(1)
	fmt.Println(p.NumCalls() >= 1 && p.NumCalls() <= 4)
	// Output: true
}

// Bursts are drawn, and most of their calls duplicate the first one: a
// burst exists to send the same action at once.
func TestPlanBursts(t *testing.T) {
	plans := examples(t, gen.DefaultWorld(), 200)
	bursts, calls, duplicates := 0, 0, 0
	for _, p := range plans {
		for _, s := range p.Steps {
			if s.Kind != model.StepBurst {
				continue
			}
			bursts++
			for _, c := range s.Calls[1:] {
				calls++
				if c == s.Calls[0] {
					duplicates++
				}
			}
		}
	}
	t.Logf("%d bursts; %d of their %d later calls duplicate the first", bursts, duplicates, calls)
	if bursts < 50 {
		t.Errorf("only %d bursts in 200 plans", bursts)
	}
	if duplicates*3 < calls {
		t.Errorf("only %d of %d burst calls duplicate the first", duplicates, calls)
	}
	for _, p := range examples(t, gen.World{MaxTenants: 3, MaxKeys: 4, MaxVariants: 3, MaxSteps: 8}, 100) {
		for _, s := range p.Steps {
			if s.Kind != model.StepCall {
				t.Fatalf("a world without bursts drew a %s", s.Kind)
			}
		}
	}
}

// The default world draws every key shape and every kind of request
// noise now and then; a world without them draws none.
func TestPlanDrawsKeyShapesAndNoise(t *testing.T) {
	count := func(w gen.World) (map[string]int, map[model.Noise]int) {
		shapes, noise := map[string]int{}, map[model.Noise]int{}
		for seed := range 300 {
			p := gen.Plan(w).Example(seed)
			for _, s := range p.Steps {
				for _, c := range s.Calls {
					if plain := model.PlainKey(c.Key); plain != c.Key {
						shapes[c.Key[len(plain):]]++
					}
					if c.Noise != model.NoiseNone {
						noise[c.Noise]++
					}
				}
			}
		}
		return shapes, noise
	}
	shapes, noise := count(gen.DefaultWorld())
	for _, s := range model.Shapes {
		if shapes[string(s)] == 0 {
			t.Errorf("no key of shape %q in 300 plans: %v", s, shapes)
		}
	}
	for _, n := range gen.DefaultWorld().Noise {
		if noise[n] == 0 {
			t.Errorf("no call with %s noise in 300 plans: %v", n, noise)
		}
	}
	plain := gen.DefaultWorld()
	plain.KeyShapes, plain.Noise = false, nil
	if shapes, noise := count(plain); len(shapes)+len(noise) != 0 {
		t.Errorf("a world without shapes or noise drew %v and %v", shapes, noise)
	}
}

// A world with payload rules to break draws refused-then-fixed sequences:
// a broken call alone in its step, keyed and without a fault, sometimes
// sent twice, then the same call fixed. A world without draws none.
func TestPlanRefusedThenFixed(t *testing.T) {
	w := gen.DefaultWorld()
	w.Broken = 3
	w.Faults = []model.Fault{model.FaultLoseReply}
	fixed, again, rules := 0, 0, map[int]bool{}
	for seed := range 300 {
		p := gen.Plan(w).Example(seed)
		for i, s := range p.Steps {
			for _, c := range s.Calls {
				if c.Broken == 0 {
					continue
				}
				rules[c.Broken] = true
				if s.Kind != model.StepCall || c.Fault != model.FaultNone || c.NoKey {
					t.Fatalf("seed %d: broken call in step %q: %s", seed, s, p)
				}
				if i+1 == len(p.Steps) {
					continue // cut at MaxSteps
				}
				next := p.Steps[i+1].Calls
				unbroken := c
				unbroken.Broken = 0
				switch {
				case len(next) == 1 && next[0] == unbroken:
					fixed++
				case len(next) == 1 && next[0] == c:
					again++
				default:
					t.Fatalf("seed %d: broken call %s followed by %s, want it again or fixed:\n%s", seed, c, p.Steps[i+1], p)
				}
			}
		}
	}
	t.Logf("300 plans: %d fixed, %d refused again", fixed, again)
	if fixed < 30 || again < 5 || len(rules) != 3 {
		t.Errorf("300 plans: %d fixed after a refused call, %d refused again, rules broken %v", fixed, again, rules)
	}
	w.Broken = 0
	for seed := range 100 {
		for _, s := range gen.Plan(w).Example(seed).Steps {
			for _, c := range s.Calls {
				if c.Broken != 0 {
					t.Fatalf("a world without rules to break drew %s", c)
				}
			}
		}
	}
}
