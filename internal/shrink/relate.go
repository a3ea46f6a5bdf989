package shrink

import (
	"maps"

	"github.com/idemstress/idemstress/internal/model"
)

// event is a call or a step of the nemesis (a restart, a dependency's
// restart or crash: step names it) of a plan, in order; bursts are their
// calls.
type event struct {
	step string
	call model.Call
}

func events(p model.Plan) []event {
	var out []event
	for _, s := range p.Steps {
		if s.Kind == model.StepRestart || s.Kind == model.StepFault {
			out = append(out, event{step: s.String()})
		}
		for _, c := range s.Calls {
			out = append(out, event{call: c})
		}
	}
	return out
}

// SubPlan reports whether small is a strict sub-plan of big: big has more
// events, and small's are among them in order under one renaming of
// tenants and keys (one-to-one).
func SubPlan(small, big model.Plan) bool {
	s, b := events(small), events(big)
	if len(s) >= len(b) {
		return false
	}
	return embeds(s, b, map[string]string{}, map[string]string{})
}

// embeds matches s into b in order, extending the renamings tenants and
// keys as it goes, and backtracks when a choice leads nowhere; plans are a
// few calls long.
func embeds(s, b []event, tenants, keys map[string]string) bool {
	if len(s) == 0 {
		return true
	}
	for j := 0; len(b)-j >= len(s); j++ {
		t2, k2, ok := match(s[0], b[j], tenants, keys)
		if ok && embeds(s[1:], b[j+1:], t2, k2) {
			return true
		}
	}
	return false
}

// match says whether event x of the smaller plan can be event y of the
// bigger under the renamings, and returns them extended.
func match(x, y event, tenants, keys map[string]string) (map[string]string, map[string]string, bool) {
	if x.step != "" || y.step != "" {
		return tenants, keys, x.step == y.step
	}
	c, d := x.call, y.call
	if c.Variant != d.Variant || c.Encoding != d.Encoding || c.Noise != d.Noise || c.NoKey != d.NoKey || c.Fault != d.Fault ||
		(c.UniqueOf == "") != (d.UniqueOf == "") {
		return nil, nil, false
	}
	t2, ok := rename(tenants, c.Tenant, d.Tenant)
	if !ok {
		return nil, nil, false
	}
	k2 := keys
	if !c.NoKey {
		if k2, ok = rename(keys, c.Key, d.Key); !ok {
			return nil, nil, false
		}
	}
	if c.UniqueOf != "" {
		// The key whose unique values a call sends is renamed with the rest.
		if k2, ok = rename(k2, c.UniqueOf, d.UniqueOf); !ok {
			return nil, nil, false
		}
	}
	return t2, k2, true
}

// rename extends a one-to-one renaming with from → to, copying it when it
// grows; false when it already maps from, or something else to to,
// otherwise.
func rename(m map[string]string, from, to string) (map[string]string, bool) {
	if got, ok := m[from]; ok {
		return m, got == to
	}
	for _, v := range m {
		if v == to {
			return nil, false
		}
	}
	n := maps.Clone(m)
	n[from] = to
	return n, true
}

// Within reports whether small's calls, bursts and restarts are among
// big's, in order, under one renaming of tenants and keys, request noise
// and re-encodings aside.
func Within(small, big model.Plan) bool {
	s, b := plainEvents(small), plainEvents(big)
	return len(s) <= len(b) && embeds(s, b, map[string]string{}, map[string]string{})
}

// plainEvents are a plan's events without request noise and
// re-encodings, each burst opened by an event of its own: calls in a
// burst are not the same as calls in sequence.
func plainEvents(p model.Plan) []event {
	var out []event
	for _, s := range EachCall(func(c *model.Call) { c.Noise, c.Encoding = model.NoiseNone, 0 })(p).Steps {
		if s.Kind == model.StepBurst {
			out = append(out, event{step: "burst"})
		}
		out = append(out, events(model.Plan{Steps: []model.Step{s}})...)
	}
	return out
}
