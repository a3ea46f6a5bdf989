package stress

import (
	"cmp"
	"maps"
	"slices"

	"github.com/idemstress/idemstress/internal/model"
)

// A run reports its root causes first. Bug B is derived from bug A when
// A's minimal plan is a strict sub-plan of B's (subPlan): every call and
// restart of A's plan, under a renaming of tenants and keys, is in B's, in
// the same order, and B's has more. A is then a mistake B's plan cannot
// help making: a re-encoding the service refuses fails alone (one call,
// IDEM-008), and the same refusal of another tenant's call shows as a
// tenant leak (two calls, IDEM-007), a symptom. A root cause is a bug
// derived from no other reported bug. Bugs are ordered by how many
// reported bugs they are derived from (roots first), then by the
// catalogue's severity.

// orderBugs sorts bugs root causes first, then by severity; the order is
// stable for bugs equal in both.
func orderBugs(bugs []*Failure) {
	depth := make(map[*Failure]int, len(bugs))
	for _, b := range bugs {
		for _, a := range bugs {
			if a != b && subPlan(a.Plan, b.Plan) {
				depth[b]++
			}
		}
	}
	slices.SortStableFunc(bugs, func(a, b *Failure) int {
		return cmp.Or(cmp.Compare(depth[a], depth[b]), cmp.Compare(rank(a.Check), rank(b.Check)))
	})
}

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

// subPlan reports whether small is a strict sub-plan of big: big has more
// events, and small's are among them in order under one renaming of
// tenants and keys (one-to-one).
func subPlan(small, big model.Plan) bool {
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
