package shrink

import (
	"slices"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Candidates lists plans one step simpler than p, most reducing first:
// the big jumps, then each step or call left out, then each call made
// simpler, then the payloads and names made plain. Every candidate names
// a retry's points as its first call's, and none restarts a crashed
// service it does not need to.
func Candidates(p model.Plan) []model.Plan {
	out := cutsFirst(p)
	out = append(out, plainKeys(p)...)
	out = append(out, fewerSteps(p)...)
	out = append(out, simplerCallsOf(p)...)
	out = append(out, BaseFirst(p)...)
	if q := Renamed(p); q.String() != p.String() {
		out = append(out, q)
	}
	for i := range out {
		out[i] = FirstCallPoints(out[i])
	}
	return slices.DeleteFunc(out, func(q model.Plan) bool { return !RestartsAfterCrashes(q) })
}

// cutsFirst are the biggest cuts, tried first (delta debugging): each step alone,
// so that a long plan whose failure needs one step (a call that never
// gets an answer) is cut at once instead of one step at a time; then a
// burst cut to its first two calls, to the first two calls of one action
// (a race between duplicates needs nothing else), or to its first half.
func cutsFirst(p model.Plan) []model.Plan {
	var out []model.Plan
	if len(p.Steps) > 2 {
		for _, s := range p.Steps {
			out = append(out, model.Plan{Steps: []model.Step{s}})
		}
	}
	for i, s := range p.Steps {
		if s.Kind == model.StepBurst && len(s.Calls) > 2 {
			out = append(out, WithStep(p, i, BurstOrCall(slices.Clone(s.Calls[:2]))))
			if pair, ok := duplicates(s.Calls); ok && !slices.Equal(pair, s.Calls[:2]) {
				out = append(out, WithStep(p, i, BurstOrCall(pair)))
			}
			// Two calls of one action that differ (a race between two
			// payloads): where identical calls show another bug (a hang),
			// the duplicates above do not show this one.
			if pair, ok := differing(s.Calls); ok && !slices.Equal(pair, s.Calls[:2]) {
				out = append(out, WithStep(p, i, BurstOrCall(pair)))
			}
			if len(s.Calls) > 4 {
				out = append(out, WithStep(p, i, BurstOrCall(slices.Clone(s.Calls[:len(s.Calls)/2]))))
			}
		}
	}
	return out
}

// plainKeys makes each shaped key plain in every call at once: calls of
// one action keep sharing a key, which changing one call at a time
// cannot do.
func plainKeys(p model.Plan) []model.Plan {
	var out []model.Plan
	seen := map[string]bool{}
	for _, s := range p.Steps {
		for _, c := range s.Calls {
			if plain := model.PlainKey(c.Key); plain != c.Key && !c.NoKey && !seen[c.Key] {
				seen[c.Key] = true
				out = append(out, WithKey(p, c.Key, plain))
			}
		}
	}
	return out
}

// fewerSteps leaves out each step, then each call of a burst, and sends
// each burst's calls one after another: a burst whose bug shows
// sequentially needs no race.
func fewerSteps(p model.Plan) []model.Plan {
	var out []model.Plan
	for i := range p.Steps {
		if len(p.Steps) > 1 {
			out = append(out, model.Plan{Steps: slices.Delete(slices.Clone(p.Steps), i, i+1)})
		}
	}
	for i, s := range p.Steps {
		if s.Kind != model.StepBurst {
			continue
		}
		for j := range s.Calls {
			calls := slices.Delete(slices.Clone(s.Calls), j, j+1)
			out = append(out, WithStep(p, i, BurstOrCall(calls)))
		}
		seq := slices.Clone(p.Steps[:i])
		for _, c := range s.Calls {
			seq = append(seq, model.Step{Kind: model.StepCall, Calls: []model.Call{c}})
		}
		out = append(out, model.Plan{Steps: append(seq, p.Steps[i+1:]...)})
	}
	return out
}

// simplerCallsOf replaces each call by each of its simpler forms
// (SimplerCalls), one call at a time.
func simplerCallsOf(p model.Plan) []model.Plan {
	var out []model.Plan
	for i, s := range p.Steps {
		for j, c := range s.Calls {
			for _, simpler := range SimplerCalls(c) {
				calls := slices.Clone(s.Calls)
				calls[j] = simpler
				step := s
				step.Calls = calls
				out = append(out, WithStep(p, i, step))
			}
		}
	}
	return out
}

// FirstCallPoints names a retry's point (model.RetryPoint) on a call that
// a candidate left as its action's first call by the point itself: the
// proxy lands at the same point of the call's work either way, and the
// plan must not call a first call a retry.
func FirstCallPoints(p model.Plan) model.Plan {
	called := map[model.Action]bool{}
	for i, s := range p.Steps {
		for j, c := range s.Calls {
			if point, ok := coverage.OfRetry(c.Point); ok && !called[c.Action()] {
				p = clonePlan(p) // candidates may share steps
				p.Steps[i].Calls[j].Point = point
			}
			called[c.Action()] = true
		}
	}
	return p
}

// EarlierFaults are p with one call's fault given way to a call fault
// the contract lists before it (crash before crash-key-record), as
// rapid's draw of the fault shrinks toward the first: the same bug
// reached by either shows under the plainer one. A fault that needs plan
// data of its own (a point, a failure) neither gives way nor replaces:
// its point names the window more plainly than a fault that lands
// somewhere in it.
func EarlierFaults(p model.Plan, faults []model.Fault) []model.Plan {
	var out []model.Plan
	for i, s := range p.Steps {
		for j, c := range s.Calls {
			if k, _ := faultkind.KindOf(c.Fault); k.AtPoint || k.Coded {
				continue
			}
			at := slices.Index(faults, c.Fault)
			for _, f := range faults[:max(at, 0)] {
				if k, _ := faultkind.KindOf(f); k.Scope != faultkind.OnCall || k.AtPoint || k.Coded {
					continue
				}
				calls := slices.Clone(s.Calls)
				calls[j].Fault, calls[j].Point = f, ""
				step := s
				step.Calls = calls
				if q := WithStep(p, i, step); RestartsAfterCrashes(q) {
					out = append(out, q)
				}
			}
		}
	}
	return out
}

// Restarts reports whether p restarts the service: a restart step, which
// follows every crash.
func Restarts(p model.Plan) bool {
	return slices.ContainsFunc(p.Steps, func(s model.Step) bool { return s.Kind == model.StepRestart })
}

// Racy reports whether p has a burst: calls whose outcome may hang on
// which of them the service serves first.
func Racy(p model.Plan) bool {
	return slices.ContainsFunc(p.Steps, func(s model.Step) bool { return s.Kind == model.StepBurst })
}

// RestartsAfterCrashes reports whether every crash of p is followed by a
// restart step, as the generator plans them: without it the replica stays
// down and every later call goes unserved, a plan no search would draw.
func RestartsAfterCrashes(p model.Plan) bool {
	for i, s := range p.Steps {
		crash := slices.ContainsFunc(s.Calls, func(c model.Call) bool { return faultkind.Crashes(c.Fault) })
		if crash && (i+1 == len(p.Steps) || p.Steps[i+1].Kind != model.StepRestart) {
			return false
		}
	}
	return true
}

// BaseFirst moves the lower encoding or payload variant of two calls of
// one action to the earlier call: "A/k1 v0e4; A/k1 v0" becomes
// "A/k1 v0; A/k1 v0e4", so a bug ends in one form whichever of the two
// calls the search happened to re-encode.
func BaseFirst(p model.Plan) []model.Plan {
	type at struct{ step, call int }
	var calls []at
	for i, s := range p.Steps {
		for j := range s.Calls {
			calls = append(calls, at{i, j})
		}
	}
	get := func(q model.Plan, a at) *model.Call { return &q.Steps[a.step].Calls[a.call] }
	var out []model.Plan
	for x, a := range calls {
		for _, b := range calls[x+1:] {
			c, d := get(p, a), get(p, b)
			if c.Action() != d.Action() || c.NoKey || d.NoKey {
				continue
			}
			if c.Encoding > d.Encoding {
				q := clonePlan(p)
				get(q, a).Encoding, get(q, b).Encoding = d.Encoding, c.Encoding
				out = append(out, q)
			}
			if c.Variant > d.Variant {
				q := clonePlan(p)
				get(q, a).Variant, get(q, b).Variant = d.Variant, c.Variant
				out = append(out, q)
			}
		}
	}
	return out
}

// clonePlan copies a plan down to its calls.
func clonePlan(p model.Plan) model.Plan {
	q := model.Plan{Steps: slices.Clone(p.Steps)}
	for i := range q.Steps {
		q.Steps[i].Calls = slices.Clone(q.Steps[i].Calls)
	}
	return q
}

// duplicates are the first two calls of the first action that has two in
// calls, in their order.
func duplicates(calls []model.Call) ([]model.Call, bool) {
	for i, c := range calls {
		for _, d := range calls[i+1:] {
			if d.Action() == c.Action() && !c.NoKey && !d.NoKey {
				return []model.Call{c, d}, true
			}
		}
	}
	return nil, false
}

// OfAction is p with only the calls of action a: other calls are left out
// of their steps, and steps left without calls go, but for restarts and
// other steps that never had calls.
func OfAction(c model.Contract, p model.Plan, a model.Action) model.Plan {
	var q model.Plan
	for _, s := range p.Steps {
		if len(s.Calls) == 0 {
			q.Steps = append(q.Steps, s)
			continue
		}
		var mine []model.Call
		for _, call := range s.Calls {
			if !call.NoKey && c.ActionOf(call) == a {
				mine = append(mine, call)
			}
		}
		switch {
		case len(mine) == 0:
		case s.Kind == model.StepBurst:
			q.Steps = append(q.Steps, BurstOrCall(mine))
		default:
			t := s
			t.Calls = mine
			q.Steps = append(q.Steps, t)
		}
	}
	return q
}

// differing is the first two calls of one action that are not the same
// call (another payload variant, encoding or noise), if any.
func differing(calls []model.Call) ([]model.Call, bool) {
	// Another payload variant first: two encodings of one payload are the
	// same request to a service that compares canonical JSON.
	for _, differ := range []func(c, d model.Call) bool{
		func(c, d model.Call) bool { return c.Variant != d.Variant },
		func(c, d model.Call) bool { return c != d },
	} {
		for i, c := range calls {
			for _, d := range calls[i+1:] {
				if d.Action() == c.Action() && !c.NoKey && !d.NoKey && differ(c, d) {
					return []model.Call{c, d}, true
				}
			}
		}
	}
	return nil, false
}

// WithKey is p with every call of key from sent with key to instead.
func WithKey(p model.Plan, from, to string) model.Plan {
	q := model.Plan{Steps: make([]model.Step, len(p.Steps))}
	for i, s := range p.Steps {
		q.Steps[i] = s // a fault step keeps its fault and target
		q.Steps[i].Calls = slices.Clone(s.Calls)
		for j, c := range q.Steps[i].Calls {
			if c.Key == from && !c.NoKey {
				q.Steps[i].Calls[j].Key = to
			}
			if c.UniqueOf == from {
				q.Steps[i].Calls[j].UniqueOf = to
			}
		}
	}
	return q
}

// WithStep is p with its step i replaced by s.
func WithStep(p model.Plan, i int, s model.Step) model.Plan {
	steps := slices.Clone(p.Steps)
	steps[i] = s
	return model.Plan{Steps: steps}
}

// BurstOrCall is calls as one step: a burst, or a plain call when there
// is one.
func BurstOrCall(calls []model.Call) model.Step {
	if len(calls) == 1 {
		return model.Step{Kind: model.StepCall, Calls: calls}
	}
	return model.Step{Kind: model.StepBurst, Calls: calls}
}

// SimplerCalls are the call with one thing made plainer.
func SimplerCalls(c model.Call) []model.Call {
	var out []model.Call
	if c.Encoding != 0 {
		d := c
		d.Encoding = 0
		out = append(out, d)
	}
	if c.Variant != 0 {
		d := c
		d.Variant--
		out = append(out, d)
	}
	if c.NoKey {
		d := c
		d.NoKey = false
		out = append(out, d)
	}
	// A call without its fault: a crash left without a crash keeps its
	// restart step, which plain calls then cross.
	if c.Fault != model.FaultNone {
		d := c
		d.Fault, d.Point = model.FaultNone, ""
		out = append(out, d)
	}
	if c.Noise != model.NoiseNone {
		d := c
		d.Noise = model.NoiseNone
		out = append(out, d)
	}
	// A broken call breaks the first rule, or none (the fixed call).
	for _, broken := range []int{1, 0} {
		if c.Broken > broken {
			d := c
			d.Broken = broken
			out = append(out, d)
		}
	}
	if plain := model.PlainKey(c.Key); plain != c.Key {
		d := c
		d.Key = plain
		out = append(out, d)
	}
	if c.UniqueOf != "" {
		d := c
		d.UniqueOf = "" // the call's own unique values
		out = append(out, d)
	}
	// A failure the fault names gives way to each one before it (40001
	// before 57P01), as rapid's draw of it shrinks: the same bug under
	// any of them ends on the same failure.
	if k, _ := faultkind.KindOf(c.Fault); k.Coded {
		for _, code := range fault.EarlierCodes(c.Fault, c.Point) {
			d := c
			d.Point = code
			out = append(out, d)
		}
	}
	return out
}

// Renamed gives tenants and keys the first names in order of appearance
// (A, B, …; k1, k2, …) and renumbers payload variants per action likewise.
func Renamed(p model.Plan) model.Plan {
	tenants, keys := map[string]string{}, map[string]string{}
	variants := map[model.Action]map[int]int{}
	q := model.Plan{Steps: make([]model.Step, len(p.Steps))}
	for i, s := range p.Steps {
		q.Steps[i] = s // a fault step keeps its fault and target
		q.Steps[i].Calls = slices.Clone(s.Calls)
		for j, c := range s.Calls {
			if _, ok := tenants[c.Tenant]; !ok {
				tenants[c.Tenant] = gen.TenantName(len(tenants))
			}
			// Plain names are renamed; a key's shape stays (k2s → k1s).
			plain := model.PlainKey(c.Key)
			if _, ok := keys[plain]; !ok && !c.NoKey {
				keys[plain] = gen.KeyName(len(keys))
			}
			c.Tenant = tenants[c.Tenant]
			if !c.NoKey {
				c.Key = keys[plain] + c.Key[len(plain):]
			}
			if of := model.PlainKey(c.UniqueOf); of != "" {
				if _, ok := keys[of]; !ok {
					keys[of] = gen.KeyName(len(keys))
				}
				c.UniqueOf = keys[of] + c.UniqueOf[len(of):]
			}
			a := c.Action()
			if variants[a] == nil {
				variants[a] = map[int]int{}
			}
			if _, ok := variants[a][c.Variant]; !ok {
				variants[a][c.Variant] = len(variants[a])
			}
			c.Variant = variants[a][c.Variant]
			q.Steps[i].Calls[j] = c
		}
	}
	return q
}
