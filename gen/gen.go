// Package gen draws plans with rapid over a deliberately small world (few
// tenants, keys and payload variants) so that calls collide often: the same
// key retried, changed, re-encoded, reused by another tenant, or sent
// several times at once.
package gen

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// World bounds what plans are drawn from. It holds a slice, so compare
// worlds with IsZero.
type World struct {
	MaxTenants  int // 1–3 by default
	MaxKeys     int // 1–4 by default
	MaxVariants int // payload variants per key, 1–3 by default
	MaxSteps    int // steps per plan
	// KeyRequired makes some calls omit the key (a correct target answers invalid).
	KeyRequired bool
	// Keyless makes some calls omit the key where it is not required
	// (key_required: false): each is an ordinary create of its own. They
	// carry no fault: a lost reply, a second delivery or a retry of a
	// keyless call is by design another create, not a replay to expect.
	Keyless bool
	// MaxBurst is the most calls a burst releases at once (2–16); 0 draws
	// no bursts, only calls one after another.
	MaxBurst int
	// KeyShapes draws some keys long, non-ASCII, or differing from another
	// call's only by trailing whitespace or case (model.Shapes).
	KeyShapes bool
	// Shapes are the key shapes KeyShapes draws from (nil: model.Shapes):
	// those the contract's key format admits (model.Contract.KeyShapes).
	Shapes []byte
	// Noise lists the request noise a call may carry (model.NoiseQuery …);
	// the contract leaves out what is part of an action's identity.
	Noise []model.Noise
	// Faults lists the faults a single call may carry (model.ProxyFaults,
	// model.FaultCrash); Restart adds restart steps. A crash call is always
	// followed by a restart step: the replica stays down until one.
	Faults  []model.Fault
	Restart bool
	// StepFaults are the fault steps a plan may have (model.StepFault: a
	// dependency's restart or crash, each naming its dependency).
	StepFaults []model.Step
	// Unique draws calls that send another action's unique values
	// (model.Call.UniqueOf): the contract has unique: fields and the
	// answer that refuses them (answers.taken).
	Unique bool
	// Broken is how many ways a call may break the contract's payload
	// rules (model.Contract.Breakages); 0 draws no refused-then-fixed
	// sequences.
	Broken int
	// Points are the points of a first call's database work a fault that
	// lands at one (model.FaultKind.AtPoint: crash-at) may name
	// (model.Call.Point), as a run learned them from an unfaulted call;
	// none: such a fault names a retry's point (the world a retry's
	// point is dealt in, Deal.World) or, without those, none and cannot
	// fire.
	Points []string
	// RetryPoints are the points of a retry's database work (the same
	// call again after the action's first call completed), as a run
	// learned them; a fault that lands at a point names them as
	// model.RetryPoint ("retry after statement 1"), on a retry composed
	// on purpose: the call, then the same call faulted. None: no such
	// retry is drawn.
	RetryPoints []string
	// Codes are the failures a fault that names its failure
	// (model.FaultKind.Coded) may deal (model.Call.Point): db-error's
	// SQLSTATEs, those the database proxy can answer a statement with,
	// and dep-error's failures at each dependency ("redis OOM");
	// none: such a fault names none and deals what it always did.
	Codes []string
	// FollowUp follows most calls whose fault leaves their fate open (a
	// crash, a transient error, a lost reply: model.FaultKind.Retried) by
	// a retry of the same call, after the restart a crash gets (followUp).
	FollowUp bool
}

// DefaultWorld is the small world of DESIGN.md, with bursts of 2–16 calls.
func DefaultWorld() World {
	return World{MaxTenants: 3, MaxKeys: 4, MaxVariants: 3, MaxSteps: 8, KeyRequired: true, MaxBurst: 16,
		KeyShapes: true, Noise: []model.Noise{model.NoiseQuery, model.NoiseTrace, model.NoiseHeaderCase}}
}

// IsZero reports a world nobody set.
func (w World) IsZero() bool {
	return w.MaxTenants == 0 && w.MaxKeys == 0 && w.MaxVariants == 0 && w.MaxSteps == 0 && !w.KeyRequired && !w.Keyless &&
		w.MaxBurst == 0 && !w.KeyShapes && w.Shapes == nil && w.Noise == nil && w.Faults == nil && !w.Restart && w.StepFaults == nil && !w.Unique &&
		w.Broken == 0 && w.Points == nil && w.RetryPoints == nil && w.Codes == nil && !w.FollowUp
}

// Validate reports a world that cannot draw plans.
func (w World) Validate() error {
	if w.MaxTenants < 1 || w.MaxTenants > 26 || w.MaxKeys < 1 || w.MaxVariants < 1 || w.MaxSteps < 1 {
		return fmt.Errorf("gen: world needs 1–26 tenants and at least one key, variant and step (got %+v)", w)
	}
	if w.MaxBurst == 1 || w.MaxBurst < 0 || w.MaxBurst > 64 {
		return fmt.Errorf("gen: bursts have 2–64 calls (or 0 for none), got %d", w.MaxBurst)
	}
	if w.Broken < 0 {
		return fmt.Errorf("gen: a world breaks 0 or more payload rules, got %d", w.Broken)
	}
	return nil
}

// pointsOf is what a call with fault f names of it (model.Call.Point):
// the points of its database work for a fault that lands at one, the
// failures for one that names its failure; nil for any other.
func (w World) pointsOf(f model.Fault) []string {
	switch k, _ := faultkind.KindOf(f); {
	case k.AtPoint:
		return w.Points
	case k.Coded:
		// A run's failures are each coded fault's: db-error's SQLSTATEs,
		// dep-error's failures at each dependency.
		return slices.DeleteFunc(slices.Clone(w.Codes), func(c string) bool { return !faultkind.CodeFor(f, c) })
	}
	return nil
}

// callFaults are the faults a call may draw: the world's, less one that
// names what it acts on (dep-error) where the world names it nothing to
// act on (model.NamesItsTarget): it could not fire.
func (w World) callFaults() []model.Fault {
	fs := w.Faults
	if slices.ContainsFunc(fs, w.cannotName) {
		fs = slices.DeleteFunc(slices.Clone(fs), w.cannotName)
	}
	return fs
}

func (w World) cannotName(f model.Fault) bool {
	return faultkind.NamesItsTarget(f) && len(w.pointsOf(f)) == 0
}

// point draws what a call with fault f names of it (model.Call.Point),
// and whether it is a retry's point: one fault at a point in three lands
// in a retry's work where the world has learned one (the draw shrinks to
// a first call's point), every one in a world of a retry's points alone
// (Deal.World).
func (w World) point(t *rapid.T, f model.Fault) (string, bool) {
	ps := w.pointsOf(f)
	if k, _ := faultkind.KindOf(f); k.AtPoint && len(w.RetryPoints) > 0 && (len(ps) == 0 || rapid.IntRange(0, 2).Draw(t, "retry's point") == 2) {
		return coverage.RetryPoint(rapid.SampledFrom(w.RetryPoints).Draw(t, "point")), true
	}
	if len(ps) == 0 {
		return "", false
	}
	return rapid.SampledFrom(ps).Draw(t, "point"), false
}

// shapes are the key shapes the world draws.
func (w World) shapes() []byte {
	if w.Shapes != nil {
		return w.Shapes
	}
	return model.Shapes
}

// TenantName is the logical name of tenant i: "A", "B", ...
func TenantName(i int) string { return string(rune('A' + i)) }

// KeyName is the logical name of key i: "k1", "k2", ...
func KeyName(i int) string { return fmt.Sprintf("k%d", i+1) }

// Plan draws plans of single calls and, when the world has them, bursts.
// Every draw shrinks toward fewer steps, single calls rather than bursts,
// bursts of two identical calls, tenant A, key k1, payload variant 0, the
// plain encoding and a call that carries its key; a refused-then-fixed
// sequence shrinks to an ordinary call.
func Plan(w World) *rapid.Generator[model.Plan] {
	return rapid.Custom(func(t *rapid.T) model.Plan {
		d := drawDims(t, w)
		groups := rapid.SliceOfN(rapid.Custom(d.step), 1, w.MaxSteps).Draw(t, "steps")
		return crashes(model.Plan{Steps: within(groups, w.MaxSteps)})
	})
}

// drawDims draws how many tenants, keys and payload variants a plan uses,
// and each key's shape. A key's shape is drawn once a plan, so that every
// call of the key has it and shrinking makes them all plain at once.
func drawDims(t *rapid.T, w World) dims {
	d := dims{
		tenants:  rapid.IntRange(1, w.MaxTenants).Draw(t, "tenants"),
		keys:     rapid.IntRange(1, w.MaxKeys).Draw(t, "keys"),
		variants: rapid.IntRange(1, w.MaxVariants).Draw(t, "variants"),
		w:        w,
	}
	for range d.keys {
		var shape byte
		if w.KeyShapes && rapid.IntRange(0, 4).Draw(t, "key shape") == 4 {
			shape = rapid.SampledFrom(w.shapes()).Draw(t, "shape")
		}
		d.shapes = append(d.shapes, shape)
	}
	return d
}

// step draws one step of a plan: a restart, a fault step, a
// refused-then-fixed sequence, a single call or a burst. Every choice but
// the call shrinks to a single call.
func (d dims) step(t *rapid.T) group {
	w := d.w
	// One step in eight is a restart when the world has them; the draw
	// shrinks to 0, a call.
	if w.Restart && rapid.IntRange(0, 7).Draw(t, "restart") == 7 {
		return group{steps: []model.Step{{Kind: model.StepRestart}}}
	}
	// As often, a fault step of its own; it shrinks to a call.
	if len(w.StepFaults) > 0 && rapid.IntRange(0, 7).Draw(t, "fault step") == 7 {
		return group{steps: []model.Step{rapid.SampledFrom(w.StepFaults).Draw(t, "fault step kind")}}
	}
	// As often, a call that breaks a payload rule, then the same call
	// fixed; it shrinks to an ordinary call.
	if w.Broken > 0 && rapid.IntRange(0, 7).Draw(t, "refused then fixed") == 7 {
		return group{steps: d.refusedThenFixed(t)}
	}
	base := d.call(t, w.KeyRequired || w.Keyless)
	// One step in four is a burst; the draw shrinks to 0, a single call.
	if w.MaxBurst == 0 || rapid.IntRange(0, 3).Draw(t, "burst") != 3 {
		return d.single(t, base)
	}
	n := rapid.IntRange(2, w.MaxBurst).Draw(t, "burst size")
	calls := []model.Call{base}
	for len(calls) < n {
		calls = append(calls, d.raceValue(t, base, d.vary(t, base)))
	}
	return group{steps: []model.Step{{Kind: model.StepBurst, Calls: calls}}}
}

// single makes base a step of its own: one single call in three carries
// a fault (the draw shrinks to none), and a fault at a retry's point puts
// the same call, unfaulted, before it.
func (d dims) single(t *rapid.T, base model.Call) group {
	w := d.w
	retry := false
	if fs := w.callFaults(); len(fs) > 0 && rapid.IntRange(0, 2).Draw(t, "faulty") == 2 {
		base.Fault = rapid.SampledFrom(fs).Draw(t, "fault")
		base.Point, retry = w.point(t, base.Fault)
	}
	if base.NoKey && w.Keyless {
		base.Fault, base.Point = model.FaultNone, ""
	}
	c := d.takeValue(t, base)
	steps := []model.Step{{Kind: model.StepCall, Calls: []model.Call{c}}}
	if retry {
		// A retry's point: the call first, unfaulted, then the same call
		// with the fault (crashes keeps it on such a retry only).
		first := c
		first.Fault, first.Point = model.FaultNone, ""
		steps = append([]model.Step{{Kind: model.StepCall, Calls: []model.Call{first}}}, steps...)
	}
	return group{steps: steps, retry: followUp(t, w, c)}
}

// within joins the drawn groups into a plan's steps of at most maxSteps.
// A refused-then-fixed sequence is up to three steps: the plan stays
// within maxSteps (its last broken call maybe unfixed). A faulted call's
// retry is its transition's end, kept past maxSteps as the restart after
// a crash is.
func within(groups []group, maxSteps int) []model.Step {
	var steps []model.Step
	retries := 0
	for _, g := range groups {
		kept := min(len(g.steps), maxSteps-(len(steps)-retries))
		steps = append(steps, g.steps[:max(kept, 0)]...)
		if g.retry != nil && kept == len(g.steps) {
			steps, retries = append(steps, *g.retry), retries+1
		}
	}
	return steps
}

// group is what one draw of a step gives: the steps, and the retry that
// follows a faulted call (followUp), if one does.
type group struct {
	steps []model.Step
	retry *model.Step
}

// followUp draws, for a call whose fault leaves its fate open (a crash, a
// transient error, a lost reply: model.FaultKind.Retried), the same call
// retried without the fault, three times in four; crashes puts the
// restart between a crash and it. What the service does after the fault
// is what a stuck key (IDEM-012), a stored error (IDEM-016) or a lost
// reply's duplicate shows, and a retry left to chance came too seldom:
// 100 plans with 9 to 22 crashes never retried one. The draw shrinks to
// 0, no retry.
func followUp(t *rapid.T, w World, c model.Call) *model.Step {
	k, _ := faultkind.KindOf(c.Fault)
	if !w.FollowUp || !k.Retried || c.NoKey || rapid.IntRange(0, 3).Draw(t, "follow-up") == 0 {
		return nil
	}
	retry := c
	retry.Fault, retry.Point = model.FaultNone, ""
	return &model.Step{Kind: model.StepCall, Calls: []model.Call{retry}}
}

// crashes makes every crash, pause or db-error in a plan one that can fire, and
// every crash one the plan recovers from: both interrupt an action's first
// writes, so they are kept only on the first call of an action with a key
// (a replay writes nothing to interrupt), but for a fault at a retry's
// point (model.RetryPoint), kept only on a retry that follows the
// action's one completed call, and a restart step follows a crash. Shrinking cannot remove that restart, so a crash's minimal plan
// shows it.
func crashes(p model.Plan) model.Plan {
	// earlier are the calls of each action so far; burst, the actions a
	// burst called.
	earlier, burst := map[model.Action][]model.Call{}, map[model.Action]bool{}
	var out []model.Step
	for i, s := range p.Steps {
		crashed := false
		if f := s.Calls; s.Kind == model.StepCall && interrupts(f[0].Fault) {
			c := s.Calls[0]
			_, atRetry := coverage.OfRetry(c.Point)
			if c.NoKey || atRetry != (len(earlier[c.Action()]) > 0) || atRetry && (burst[c.Action()] || !completed(earlier[c.Action()], c)) {
				s.Calls = []model.Call{c}
				s.Calls[0].Fault, s.Calls[0].Point = model.FaultNone, ""
			} else {
				crashed = faultkind.Crashes(c.Fault)
			}
		}
		for _, c := range s.Calls {
			earlier[c.Action()] = append(earlier[c.Action()], c)
			burst[c.Action()] = burst[c.Action()] || s.Kind == model.StepBurst
		}
		out = append(out, s)
		if crashed && (i+1 == len(p.Steps) || p.Steps[i+1].Kind != model.StepRestart) {
			out = append(out, model.Step{Kind: model.StepRestart})
		}
	}
	return model.Plan{Steps: out}
}

// completed reports whether the action's calls before retry are one
// single call that a correct service completes (keyed, unfaulted, its own
// unique values, no broken rule) with retry's payload: then retry's work
// is the one its points were learned from, a replay, and a crash at one
// of them fires.
func completed(before []model.Call, retry model.Call) bool {
	if len(before) != 1 {
		return false
	}
	c := before[0]
	return c.Fault == model.FaultNone && !c.NoKey && c.UniqueOf == "" && c.Broken == 0 && retry.UniqueOf == "" && retry.Broken == 0 && c.Variant == retry.Variant
}

// interrupts reports whether fault f acts on a call's first writes (a
// crash, a pause, a transient database failure), which a replay does not
// make (model.FaultKind.FirstCall).
func interrupts(f model.Fault) bool {
	k, _ := faultkind.KindOf(f)
	return k.FirstCall
}

// dims is the size of one plan's world.
type dims struct {
	tenants, keys, variants int
	w                       World
	// shapes is each key's shape in this plan (0: plain).
	shapes []byte
}

func (d dims) call(t *rapid.T, keyRequired bool) model.Call {
	c := model.Call{
		Tenant:   TenantName(rapid.IntRange(0, d.tenants-1).Draw(t, "tenant")),
		Key:      d.key(t),
		Variant:  rapid.IntRange(0, d.variants-1).Draw(t, "variant"),
		Encoding: rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "encoding"),
		Noise:    d.noise(t),
	}
	// One call in ten omits its key; the draw shrinks to 0, a keyed call.
	if keyRequired && rapid.IntRange(0, 9).Draw(t, "omit key") == 9 {
		c.NoKey = true
	}
	return c
}

// refusedThenFixed draws a call with a key that breaks one of the
// contract's payload rules, sometimes sent again, then the same call with
// its payload fixed: a correct service refuses the broken one without
// effect, and what it then answers the fixed one is the contract's
// refusals: policy. They carry no fault: a refusal is the point.
func (d dims) refusedThenFixed(t *rapid.T) []model.Step {
	fixed := d.call(t, false)
	broken := fixed
	broken.Broken = rapid.IntRange(1, d.w.Broken).Draw(t, "broken rule")
	steps := []model.Step{{Kind: model.StepCall, Calls: []model.Call{broken}}}
	if rapid.IntRange(0, 2).Draw(t, "refused again") == 2 {
		steps = append(steps, model.Step{Kind: model.StepCall, Calls: []model.Call{broken}})
	}
	return append(steps, model.Step{Kind: model.StepCall, Calls: []model.Call{fixed}})
}

// vary draws another call of a burst: mostly the same call again (a
// duplicate), sometimes re-encoded, with another payload, from another
// tenant, or for another key. It shrinks to an exact duplicate.
func (d dims) vary(t *rapid.T, base model.Call) model.Call {
	c := base
	switch rapid.IntRange(0, 7).Draw(t, "vary") {
	case 1:
		c.Encoding = rapid.IntRange(0, payloads.NumEncodings-1).Draw(t, "encoding")
	case 2:
		c.Variant = rapid.IntRange(0, d.variants-1).Draw(t, "variant")
	case 3:
		c.Tenant = TenantName(rapid.IntRange(0, d.tenants-1).Draw(t, "tenant"))
	case 4:
		c.Key = d.key(t)
	case 5:
		c.Noise = d.noise(t)
	case 6:
		// The same key in another shape: whitespace or case apart.
		if d.w.KeyShapes && !c.NoKey {
			c.Key = model.Shaped(model.PlainKey(c.Key), rapid.SampledFrom(d.w.shapes()).Draw(t, "shape"))
		}
	}
	return c
}

// key draws a logical key, in the shape the plan gave it (mostly plain,
// one key in five in another shape).
func (d dims) key(t *rapid.T) string {
	i := rapid.IntRange(0, d.keys-1).Draw(t, "key")
	if d.shapes[i] != 0 {
		return model.Shaped(KeyName(i), d.shapes[i])
	}
	return KeyName(i)
}

// noise draws request noise for one call in four; it shrinks to none.
func (d dims) noise(t *rapid.T) model.Noise {
	if len(d.w.Noise) == 0 || rapid.IntRange(0, 3).Draw(t, "noisy") != 3 {
		return model.NoiseNone
	}
	return rapid.SampledFrom(d.w.Noise).Draw(t, "noise")
}

// takeValue makes one call in five send the unique values of another key's
// action of its tenant instead of its own, where the world has unique
// fields and two keys; the draw shrinks to the call's own values.
func (d dims) takeValue(t *rapid.T, c model.Call) model.Call {
	if !d.w.Unique || c.NoKey || d.keys < 2 || rapid.IntRange(0, 4).Draw(t, "take value") != 4 {
		return c
	}
	j := rapid.IntRange(0, d.keys-2).Draw(t, "value of")
	if KeyName(j) == model.PlainKey(c.Key) {
		j = d.keys - 1 // the one index the draw leaves out
	}
	c.UniqueOf = d.keyAt(j)
	return c
}

// raceValue makes one call in eight of a burst another key's call that
// sends the unique values of the burst's first call: two actions race for
// one value. It shrinks to the call as varied.
func (d dims) raceValue(t *rapid.T, base, c model.Call) model.Call {
	if !d.w.Unique || base.NoKey || d.keys < 2 || rapid.IntRange(0, 7).Draw(t, "race value") != 7 {
		return c
	}
	j := rapid.IntRange(0, d.keys-2).Draw(t, "racer")
	if KeyName(j) == model.PlainKey(base.Key) {
		j = d.keys - 1
	}
	c.Key, c.NoKey, c.UniqueOf = d.keyAt(j), false, base.Key
	return c
}

// keyAt is logical key i in the shape the plan gave it.
func (d dims) keyAt(i int) string {
	if d.shapes[i] != 0 {
		return model.Shaped(KeyName(i), d.shapes[i])
	}
	return KeyName(i)
}
