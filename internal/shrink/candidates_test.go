package shrink

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
)

// size measures how complex a plan is; plans compare by it
// lexicographically: the number of calls, then of calls in bursts, then of
// steps, then call by call (in plan order) the tenant, key, payload variant,
// encoding and whether the key is missing. Tenants and keys count by their
// place in gen's order (A, B, …; k1, k2, …).
//
// Every candidate must be smaller than its plan. The order is well founded
// (a plan has finitely many calls and all entries are naturals), so the
// shrinker, which only ever moves to a candidate, stops even without its
// time budget. Fewer steps alone would not do: a burst's sequential variant
// has more steps, but fewer calls in bursts; and renaming can raise a
// variant, but lowers the first tenant, key or variant it changes.
func size(t *rapid.T, p model.Plan) []int {
	t.Helper()
	bursts := 0
	for _, s := range p.Steps {
		if s.Kind == model.StepBurst {
			bursts += len(s.Calls)
		}
	}
	out := []int{p.NumCalls(), bursts, len(p.Steps)}
	for _, s := range p.Steps {
		for _, c := range s.Calls {
			noKey := 0
			if c.NoKey {
				noKey = 1
			}
			shape := 0
			if plain := model.PlainKey(c.Key); plain != c.Key {
				shape = 1 + strings.IndexByte(string(model.Shapes), c.Key[len(plain)])
			}
			out = append(out, nameIndex(t, c.Tenant, gen.TenantName), nameIndex(t, model.PlainKey(c.Key), gen.KeyName), shape,
				c.Variant, c.Encoding, int(c.Noise), noKey)
		}
	}
	return out
}

// nameIndex is the i with name(i) == s.
func nameIndex(t *rapid.T, s string, name func(int) string) int {
	t.Helper()
	for i := range 26 {
		if name(i) == s {
			return i
		}
	}
	t.Fatalf("%q is not a name gen gives", s)
	return 0
}

// checkWellFormed fails t unless every step is one call or a burst of two or
// more: what gen draws and the runner executes.
func checkWellFormed(t *rapid.T, p model.Plan) {
	t.Helper()
	if len(p.Steps) == 0 {
		t.Fatalf("a plan without steps")
	}
	for i, s := range p.Steps {
		if !(s.Kind == model.StepCall && len(s.Calls) == 1 || s.Kind == model.StepBurst && len(s.Calls) >= 2) {
			t.Fatalf("step %d is %q with %d calls:\n%s", i+1, s.Kind, len(s.Calls), p)
		}
	}
}

func TestCandidatesAreSimpler(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gen.Plan(gen.DefaultWorld()).Draw(t, "plan")
		ps := size(t, p)
		for i, c := range Candidates(p) {
			checkWellFormed(t, c)
			if cs := size(t, c); slices.Compare(cs, ps) >= 0 {
				t.Fatalf("candidate %d is not simpler than its plan:\n%s(size %v)\ncandidate:\n%s(size %v)", i, p, ps, c, cs)
			}
		}
	})
}

// Shrinking a candidate again, and again, ends, and only at the simplest
// plan: one call of A/k1 with payload variant 0, plainly encoded.
func TestShrinkChainEnds(t *testing.T) {
	simplest := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}}}
	rapid.Check(t, func(t *rapid.T) {
		p := gen.Plan(gen.DefaultWorld()).Draw(t, "plan")
		for n := 0; ; n++ {
			cands := Candidates(p)
			if len(cands) == 0 {
				if !reflect.DeepEqual(p, simplest) {
					t.Fatalf("no candidates for\n%swant some for all but\n%s", p, simplest)
				}
				return
			}
			if n > 10_000 {
				t.Fatalf("still shrinking after %d steps:\n%s", n, p)
			}
			p = cands[rapid.IntRange(0, len(cands)-1).Draw(t, "pick")]
		}
	})
}

// bigJumps are the candidates that must come first: each burst of more than
// two calls cut to its first two, to the first two calls of one action
// (when those are others), and one of more than four to its first half.
func bigJumps(p model.Plan) []model.Plan {
	var out []model.Plan
	// Each step alone first, for plans of three steps or more.
	if len(p.Steps) > 2 {
		for _, s := range p.Steps {
			out = append(out, model.Plan{Steps: []model.Step{s}})
		}
	}
	cut := func(i, n int) model.Plan {
		q := model.Plan{Steps: slices.Clone(p.Steps)}
		q.Steps[i] = model.Step{Kind: model.StepBurst, Calls: slices.Clone(p.Steps[i].Calls[:n])}
		return q
	}
	for i, s := range p.Steps {
		if s.Kind == model.StepBurst && len(s.Calls) > 2 {
			out = append(out, cut(i, 2))
			for j, c := range s.Calls {
				k := slices.IndexFunc(s.Calls[j+1:], func(d model.Call) bool { return d.Action() == c.Action() && !c.NoKey && !d.NoKey })
				if k < 0 {
					continue
				}
				if j != 0 || k != 0 {
					q := model.Plan{Steps: slices.Clone(p.Steps)}
					q.Steps[i] = model.Step{Kind: model.StepBurst, Calls: []model.Call{c, s.Calls[j+1+k]}}
					out = append(out, q)
				}
				break
			}
			// Then two calls of the action that differ, a race between
			// two payloads (differing, shrink.go).
			if pair, ok := differing(s.Calls); ok && !slices.Equal(pair, s.Calls[:2]) {
				q := model.Plan{Steps: slices.Clone(p.Steps)}
				q.Steps[i] = model.Step{Kind: model.StepBurst, Calls: pair}
				out = append(out, q)
			}
			if len(s.Calls) > 4 {
				out = append(out, cut(i, len(s.Calls)/2))
			}
		}
	}
	return out
}

func TestBigJumpsFirst(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gen.Plan(gen.DefaultWorld()).Draw(t, "plan")
		want := bigJumps(p)
		got := Candidates(p)
		if len(got) < len(want) || !samePlans(got[:len(want)], want) {
			t.Fatalf("plan:\n%sfirst candidates:\n%swant each step alone, then the bursts cut, first:\n%s", p, plans(got[:min(len(got), len(want)+1)]), plans(want))
		}
	})
}

// sequential is p with burst i sent one call after another.
func sequential(p model.Plan, i int) model.Plan {
	steps := slices.Clone(p.Steps[:i])
	for _, c := range p.Steps[i].Calls {
		steps = append(steps, model.Step{Kind: model.StepCall, Calls: []model.Call{c}})
	}
	return model.Plan{Steps: append(steps, p.Steps[i+1:]...)}
}

func TestBurstHasSequentialCandidate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gen.Plan(gen.DefaultWorld()).Draw(t, "plan")
		cands := Candidates(p)
		for i, s := range p.Steps {
			if s.Kind != model.StepBurst {
				continue
			}
			want := sequential(p, i)
			if !slices.ContainsFunc(cands, func(c model.Plan) bool { return reflect.DeepEqual(c, want) }) {
				t.Fatalf("no sequential candidate for step %d of\n%swant\n%s", i+1, p, want)
			}
		}
	})
}

func TestRenamedIsIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gen.Plan(gen.DefaultWorld()).Draw(t, "plan")
		q := Renamed(p)
		if qq := Renamed(q); !reflect.DeepEqual(qq, q) {
			t.Fatalf("renamed twice differs from once:\n%sonce:\n%stwice:\n%s", p, q, qq)
		}
	})
}

// Renaming keeps the plan's shape and which calls share a tenant, a key or
// (within an action) a payload, and gives names in order of appearance.
func TestRenamedInOrderOfAppearance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := gen.Plan(gen.DefaultWorld()).Draw(t, "plan")
		q := Renamed(p)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("%s\nplan:\n%srenamed:\n%s", fmt.Sprintf(format, args...), p, q)
		}
		var pc, qc []model.Call
		if len(q.Steps) != len(p.Steps) {
			fail("%d steps, want %d", len(q.Steps), len(p.Steps))
		}
		for i := range p.Steps {
			if q.Steps[i].Kind != p.Steps[i].Kind || len(q.Steps[i].Calls) != len(p.Steps[i].Calls) {
				fail("step %d changed its kind or number of calls", i+1)
			}
			pc, qc = append(pc, p.Steps[i].Calls...), append(qc, q.Steps[i].Calls...)
		}
		tenants, keys := map[string]bool{}, map[string]bool{}
		variants := map[model.Action]map[int]bool{}
		for i, c := range qc {
			if c.NoKey != pc[i].NoKey || c.Encoding != pc[i].Encoding || c.Fault != pc[i].Fault {
				fail("call %d: %v became %v", i+1, pc[i], c)
			}
			if !tenants[c.Tenant] {
				if want := gen.TenantName(len(tenants)); c.Tenant != want {
					fail("call %d: new tenant %q, want %q", i+1, c.Tenant, want)
				}
				tenants[c.Tenant] = true
			}
			if c.NoKey && c.Key != pc[i].Key {
				fail("call %d without a key: key %q became %q", i+1, pc[i].Key, c.Key)
			}
			// Plain names in order of appearance; a key's shape stays.
			if plain := model.PlainKey(c.Key); !c.NoKey && !keys[plain] {
				if want := gen.KeyName(len(keys)); plain != want {
					fail("call %d: new key %q, want %q", i+1, plain, want)
				}
				keys[plain] = true
			}
			if !c.NoKey && c.Key[len(model.PlainKey(c.Key)):] != pc[i].Key[len(model.PlainKey(pc[i].Key)):] {
				fail("call %d: key %q lost or changed its shape as %q", i+1, pc[i].Key, c.Key)
			}
			a := c.Action()
			if variants[a] == nil {
				variants[a] = map[int]bool{}
			}
			if !variants[a][c.Variant] {
				if want := len(variants[a]); c.Variant != want {
					fail("call %d: new variant %d of %s, want %d", i+1, c.Variant, a, want)
				}
				variants[a][c.Variant] = true
			}
			for j := range i {
				d, pd := qc[j], pc[j]
				if (d.Tenant == c.Tenant) != (pd.Tenant == pc[i].Tenant) {
					fail("calls %d and %d: tenants %q, %q became %q, %q", j+1, i+1, pd.Tenant, pc[i].Tenant, d.Tenant, c.Tenant)
				}
				if !c.NoKey && !d.NoKey && (d.Key == c.Key) != (pd.Key == pc[i].Key) {
					fail("calls %d and %d: keys %q, %q became %q, %q", j+1, i+1, pd.Key, pc[i].Key, d.Key, c.Key)
				}
				if d.Action() == a && (d.Variant == c.Variant) != (pd.Variant == pc[i].Variant) {
					fail("calls %d and %d of %s: variants %d, %d became %d, %d", j+1, i+1, a, pd.Variant, pc[i].Variant, d.Variant, c.Variant)
				}
			}
		}
	})
}

func samePlans(a, b []model.Plan) bool {
	return slices.EqualFunc(a, b, func(p, q model.Plan) bool { return reflect.DeepEqual(p, q) })
}

func plans(ps []model.Plan) string {
	s := ""
	for i, p := range ps {
		s += fmt.Sprintf("-- %d\n%s", i, p)
	}
	return s
}

func call(tenant, key string, variant int) model.Call {
	return model.Call{Tenant: tenant, Key: key, Variant: variant}
}

func TestSimplerCalls(t *testing.T) {
	for _, tc := range []struct {
		call model.Call
		want []model.Call
	}{
		{call("A", "k1", 0), nil},
		{model.Call{Tenant: "B", Key: "k2", Variant: 2, Encoding: 3, NoKey: true}, []model.Call{
			{Tenant: "B", Key: "k2", Variant: 2, Encoding: 0, NoKey: true},
			{Tenant: "B", Key: "k2", Variant: 1, Encoding: 3, NoKey: true},
			{Tenant: "B", Key: "k2", Variant: 2, Encoding: 3, NoKey: false},
		}},
		{model.Call{Tenant: "A", Key: "k1", Variant: 1}, []model.Call{call("A", "k1", 0)}},
		// A broken call breaks the first rule, or none: the fixed call.
		{model.Call{Tenant: "A", Key: "k1", Broken: 3}, []model.Call{{Tenant: "A", Key: "k1", Broken: 1}, call("A", "k1", 0)}},
		{model.Call{Tenant: "A", Key: "k1", Broken: 1}, []model.Call{call("A", "k1", 0)}},
		// A failure a db-error names gives way to each before it.
		{model.Call{Tenant: "A", Key: "k1", Fault: model.FaultDBError, Point: "57P01"}, []model.Call{
			call("A", "k1", 0),
			{Tenant: "A", Key: "k1", Fault: model.FaultDBError, Point: "40001"},
			{Tenant: "A", Key: "k1", Fault: model.FaultDBError, Point: "40P01"},
		}},
		{model.Call{Tenant: "A", Key: "k1", Fault: model.FaultDBError, Point: "40001"}, []model.Call{call("A", "k1", 0)}},
		// A dep-error's, at the same dependency.
		{model.Call{Tenant: "A", Key: "k1", Fault: model.FaultDepError, Point: "redis LOADING"}, []model.Call{
			call("A", "k1", 0),
			{Tenant: "A", Key: "k1", Fault: model.FaultDepError, Point: "redis OOM"},
			{Tenant: "A", Key: "k1", Fault: model.FaultDepError, Point: "redis READONLY"},
		}},
		{model.Call{Tenant: "A", Key: "k1", Fault: model.FaultDepError, Point: "redis OOM"}, []model.Call{call("A", "k1", 0)}},
		// A call without its fault, and its point with it.
		{model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrashAt, Point: "after commit 1"}, []model.Call{call("A", "k1", 0)}},
	} {
		if got := SimplerCalls(tc.call); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("simplerCalls(%v) = %v, want %v", tc.call, got, tc.want)
		}
	}
}

func TestBurstOrCall(t *testing.T) {
	one := []model.Call{call("A", "k1", 0)}
	if got := BurstOrCall(one); got.Kind != model.StepCall || !reflect.DeepEqual(got.Calls, one) {
		t.Errorf("burstOrCall of one call = %+v, want a call step", got)
	}
	two := []model.Call{call("A", "k1", 0), call("A", "k1", 1)}
	if got := BurstOrCall(two); got.Kind != model.StepBurst || !reflect.DeepEqual(got.Calls, two) {
		t.Errorf("burstOrCall of two calls = %+v, want a burst", got)
	}
}

func TestCandidatesTable(t *testing.T) {
	step := func(calls ...model.Call) model.Step { return BurstOrCall(calls) }
	burstOf := func(n int) model.Step {
		calls := make([]model.Call, n)
		for i := range calls {
			calls[i] = call("A", "k1", i%2)
		}
		return model.Step{Kind: model.StepBurst, Calls: calls}
	}
	for _, tc := range []struct {
		name string
		plan model.Plan
		want []model.Plan // the first candidates, in order
		all  int          // how many candidates in all; -1: not checked
	}{
		{
			name: "a plain call is as simple as it gets",
			plan: model.Plan{Steps: []model.Step{step(call("A", "k1", 0))}},
			all:  0,
		},
		{
			name: "two calls: drop either, then simplify",
			plan: model.Plan{Steps: []model.Step{step(call("A", "k1", 0)), step(call("A", "k1", 1))}},
			want: []model.Plan{
				{Steps: []model.Step{step(call("A", "k1", 1))}},
				{Steps: []model.Step{step(call("A", "k1", 0))}},
				{Steps: []model.Step{step(call("A", "k1", 0)), step(call("A", "k1", 0))}},
			},
			all: 3,
		},
		{
			name: "a burst of six: cut to two, then to three, before anything else",
			plan: model.Plan{Steps: []model.Step{step(call("A", "k1", 0)), burstOf(6)}},
			want: []model.Plan{
				{Steps: []model.Step{step(call("A", "k1", 0)), burstOf(2)}},
				{Steps: []model.Step{step(call("A", "k1", 0)), burstOf(3)}},
				{Steps: []model.Step{burstOf(6)}},
				{Steps: []model.Step{step(call("A", "k1", 0))}},
			},
			all: -1,
		},
		{
			name: "a burst of two: each call alone, then one after the other",
			plan: model.Plan{Steps: []model.Step{step(call("A", "k1", 0), call("A", "k1", 0))}},
			want: []model.Plan{
				{Steps: []model.Step{step(call("A", "k1", 0))}},
				{Steps: []model.Step{step(call("A", "k1", 0))}},
				{Steps: []model.Step{step(call("A", "k1", 0)), step(call("A", "k1", 0))}},
			},
			all: 3,
		},
		{
			name: "names last: C/k3 becomes A/k1",
			plan: model.Plan{Steps: []model.Step{step(call("C", "k3", 2))}},
			want: []model.Plan{
				{Steps: []model.Step{step(call("C", "k3", 1))}},
				{Steps: []model.Step{step(call("A", "k1", 0))}},
			},
			all: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Candidates(tc.plan)
			if len(got) < len(tc.want) || !samePlans(got[:len(tc.want)], tc.want) {
				t.Fatalf("candidates of\n%sstart\n%swant\n%s", tc.plan, plans(got), plans(tc.want))
			}
			if tc.all >= 0 && len(got) != tc.all {
				t.Errorf("%d candidates, want %d:\n%s", len(got), tc.all, plans(got))
			}
		})
	}
}

func TestRenamedTable(t *testing.T) {
	noKey := func(c model.Call) model.Call { c.NoKey = true; return c }
	for _, tc := range []struct {
		name       string
		plan, want model.Plan
	}{
		{
			name: "first seen, first named",
			plan: model.Plan{Steps: []model.Step{
				{Kind: model.StepCall, Calls: []model.Call{call("C", "k3", 2)}},
				{Kind: model.StepBurst, Calls: []model.Call{call("A", "k3", 1), call("C", "k2", 2), call("C", "k3", 0)}},
			}},
			want: model.Plan{Steps: []model.Step{
				{Kind: model.StepCall, Calls: []model.Call{call("A", "k1", 0)}},
				{Kind: model.StepBurst, Calls: []model.Call{call("B", "k1", 0), call("A", "k2", 0), call("A", "k1", 1)}},
			}},
		},
		{
			// A call without a key keeps the key it does not send; the
			// keyed calls take the first key names.
			name: "a call without a key",
			plan: model.Plan{Steps: []model.Step{
				{Kind: model.StepCall, Calls: []model.Call{noKey(call("B", "k4", 1))}},
				{Kind: model.StepCall, Calls: []model.Call{call("B", "k2", 1)}},
			}},
			want: model.Plan{Steps: []model.Step{
				{Kind: model.StepCall, Calls: []model.Call{noKey(call("A", "k4", 0))}},
				{Kind: model.StepCall, Calls: []model.Call{call("A", "k1", 0)}},
			}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Renamed(tc.plan); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("renamed\n%s= \n%swant\n%s", tc.plan, got, tc.want)
			}
		})
	}
}

// An action's re-encoded or changed call moves behind its base call, so
// that the same bug ends in one form whichever call a seed re-encoded
// (TestSampleModes once got "A/k1 v0e4; A/k1 v0" for raw-body-fingerprint).
func TestBaseFirst(t *testing.T) {
	call := func(c model.Call) model.Step { return model.Step{Kind: model.StepCall, Calls: []model.Call{c}} }
	p := model.Plan{Steps: []model.Step{call(model.Call{Tenant: "A", Key: "k1", Encoding: 4}), call(model.Call{Tenant: "A", Key: "k1"})}}
	var got []string
	for _, q := range BaseFirst(p) {
		got = append(got, q.Compact())
	}
	if want := []string{"A/k1 v0; A/k1 v0e4"}; !slices.Equal(got, want) {
		t.Errorf("baseFirst(%s) = %q, want %q", p.Compact(), got, want)
	}
	if p.Compact() != "A/k1 v0e4; A/k1 v0" {
		t.Errorf("baseFirst changed its argument: %s", p.Compact())
	}
	// Other actions, and calls already in order, give nothing.
	for _, q := range []model.Plan{
		{Steps: []model.Step{call(model.Call{Tenant: "A", Key: "k1", Encoding: 4}), call(model.Call{Tenant: "B", Key: "k1"})}},
		{Steps: []model.Step{call(model.Call{Tenant: "A", Key: "k1"}), call(model.Call{Tenant: "A", Key: "k1", Variant: 2})}},
	} {
		if c := BaseFirst(q); len(c) != 0 {
			t.Errorf("baseFirst(%s) = %v, want none", q.Compact(), c)
		}
	}
	if c := Candidates(p); !slices.ContainsFunc(c, func(q model.Plan) bool { return q.Compact() == "A/k1 v0; A/k1 v0e4" }) {
		t.Error("candidates do not move the base encoding first")
	}
}

// A crash's restart stays: no candidate leaves a crash without the
// restart step after it, so A/k1 v0 [crash]; restart shrinks no further
// than that.
func TestCandidatesKeepTheRestartAfterACrash(t *testing.T) {
	crash := model.Call{Tenant: "A", Key: "k1", Fault: model.FaultCrash}
	p := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{crash}}, {Kind: model.StepRestart},
		{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}}}}
	cands := Candidates(p)
	if len(cands) == 0 {
		t.Fatal("no candidate: the retry after the restart can go")
	}
	for _, q := range cands {
		if !RestartsAfterCrashes(q) {
			t.Errorf("candidate %s leaves the crash without its restart", q.Compact())
		}
	}
}

// A burst whose identical calls show another bug (they hang) has a
// candidate of two calls of one action that differ, so a race between two
// payloads (a 500 to the loser) shrinks without them.
func TestCandidatesCutABurstToTwoDifferingCalls(t *testing.T) {
	same, other := model.Call{Tenant: "B", Key: "k1", Variant: 2, Encoding: 1}, model.Call{Tenant: "B", Key: "k1", Variant: 1, Encoding: 1}
	reencoded := model.Call{Tenant: "B", Key: "k1", Variant: 2, Encoding: 3}
	burst := model.Step{Kind: model.StepBurst, Calls: []model.Call{same, same, reencoded, other, same}}
	want := model.Plan{Steps: []model.Step{{Kind: model.StepBurst, Calls: []model.Call{same, other}}}}.String()
	if !slices.ContainsFunc(Candidates(model.Plan{Steps: []model.Step{burst}}), func(p model.Plan) bool { return p.String() == want }) {
		t.Errorf("no candidate cuts the burst to %s", want)
	}
}

// ofAction keeps the calls of the action being shrunk, and the restarts between
// them: a crash, its restart and the retry, without the other action's
// bursts that hang.
func TestOfAction(t *testing.T) {
	a := model.Call{Tenant: "A", Key: "k1"}
	crash := a
	crash.Fault = model.FaultCrash
	b := model.Call{Tenant: "B", Key: "k1", Variant: 1}
	p := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{crash}},
		{Kind: model.StepRestart},
		{Kind: model.StepBurst, Calls: []model.Call{b, b}},
		{Kind: model.StepBurst, Calls: []model.Call{a, b}},
	}}
	want := model.Plan{Steps: []model.Step{
		{Kind: model.StepCall, Calls: []model.Call{crash}},
		{Kind: model.StepRestart},
		{Kind: model.StepCall, Calls: []model.Call{a}},
	}}
	if got := OfAction(model.DefaultContract(), p, model.Action{Tenant: "A", Key: "k1"}); got.String() != want.String() {
		t.Errorf("ofAction:\n%swant\n%s", got, want)
	}
}

// A candidate that drops the completed call before a crash at a retry's
// point names the point as a first call's: the proxy lands at the same
// point of the call's work, and a first call is no retry.
func TestCandidatesNameAFirstCallsPoint(t *testing.T) {
	a := model.Call{Tenant: "A", Key: "k1"}
	crash := a
	crash.Fault, crash.Point = model.FaultCrashAt, "retry after statement 1"
	p := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{a}}, {Kind: model.StepCall, Calls: []model.Call{crash}},
		{Kind: model.StepRestart}, {Kind: model.StepCall, Calls: []model.Call{a}}}}
	want := "A/k1 v0 [crash-at after statement 1]; restart; A/k1 v0"
	found := false
	for _, q := range Candidates(p) {
		found = found || q.Compact() == want
		if strings.HasPrefix(q.Compact(), "A/k1 v0 [crash-at retry") {
			t.Errorf("candidate %s calls a first call a retry", q.Compact())
		}
	}
	if !found {
		t.Errorf("no candidate %s", want)
	}
	if got := p.Compact(); got != "A/k1 v0; A/k1 v0 [crash-at retry after statement 1]; restart; A/k1 v0" {
		t.Errorf("candidates changed the plan they came from: %s", got)
	}
}

// A call's fault gives way to each call fault the contract lists before
// it that needs no plan data, and only where every crash is still
// followed by a restart; a fault at a point keeps it.
func TestEarlierFaults(t *testing.T) {
	faults := []model.Fault{model.FaultLoseReply, model.FaultRestart, model.FaultCrash, model.FaultCrashAt, model.FaultCrashKeyRecord}
	restart := model.Step{Kind: model.StepRestart}
	keyRecord := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: model.FaultCrashKeyRecord}}}, restart}}
	var got []string
	for _, q := range EarlierFaults(keyRecord, faults) {
		got = append(got, q.Compact())
	}
	want := []string{"A/k1 v0 [lose-reply]; restart", "A/k1 v0 [crash]; restart"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("earlierFaults(%s) = %q, want %q", keyRecord, got, want)
	}
	atPoint := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: model.FaultCrashAt, Point: "after commit 1"}}}, restart}}
	if got := EarlierFaults(atPoint, faults); len(got) != 0 {
		t.Errorf("earlierFaults(%s) = %v, want none", atPoint, got)
	}
	lost := model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Fault: model.FaultCrashKeyRecord}}}}}
	if got := EarlierFaults(lost, faults); len(got) != 1 || got[0].Compact() != "A/k1 v0 [lose-reply]" {
		t.Errorf("earlierFaults(%s) = %v, want only the lose-reply (a crash needs its restart)", lost, got)
	}
}
