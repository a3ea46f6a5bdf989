// Package gen draws plans with rapid over a deliberately small world (few
// tenants, keys and payload variants) so that calls collide often: the same
// key retried, changed, re-encoded, or reused by another tenant.
package gen

import (
	"fmt"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/model"
)

// World bounds what plans are drawn from.
type World struct {
	MaxTenants  int // 1–3 by default
	MaxKeys     int // 1–4 by default
	MaxVariants int // payload variants per key, 1–3 by default
	MaxSteps    int // steps per plan
	// KeyRequired makes some calls omit the key (a correct target answers invalid).
	KeyRequired bool
}

// DefaultWorld is the small world of DESIGN.md.
func DefaultWorld() World {
	return World{MaxTenants: 3, MaxKeys: 4, MaxVariants: 3, MaxSteps: 8, KeyRequired: true}
}

// Validate reports a world that cannot draw plans.
func (w World) Validate() error {
	if w.MaxTenants < 1 || w.MaxTenants > 26 || w.MaxKeys < 1 || w.MaxVariants < 1 || w.MaxSteps < 1 {
		return fmt.Errorf("gen: world needs 1–26 tenants and at least one key, variant and step (got %+v)", w)
	}
	return nil
}

// TenantName is the logical name of tenant i: "A", "B", ...
func TenantName(i int) string { return string(rune('A' + i)) }

// KeyName is the logical name of key i: "k1", "k2", ...
func KeyName(i int) string { return fmt.Sprintf("k%d", i+1) }

// Plan draws sequential plans: each step is one call. Every draw shrinks
// toward fewer steps, tenant A, key k1, payload variant 0, the plain
// encoding and a call that carries its key.
func Plan(w World) *rapid.Generator[model.Plan] {
	return rapid.Custom(func(t *rapid.T) model.Plan {
		tenants := rapid.IntRange(1, w.MaxTenants).Draw(t, "tenants")
		keys := rapid.IntRange(1, w.MaxKeys).Draw(t, "keys")
		variants := rapid.IntRange(1, w.MaxVariants).Draw(t, "variants")
		call := rapid.Custom(func(t *rapid.T) model.Call {
			c := model.Call{
				Tenant:   TenantName(rapid.IntRange(0, tenants-1).Draw(t, "tenant")),
				Key:      KeyName(rapid.IntRange(0, keys-1).Draw(t, "key")),
				Variant:  rapid.IntRange(0, variants-1).Draw(t, "variant"),
				Encoding: rapid.IntRange(0, model.NumEncodings-1).Draw(t, "encoding"),
			}
			// One call in ten omits its key; the draw shrinks to 0, a keyed call.
			if w.KeyRequired && rapid.IntRange(0, 9).Draw(t, "omit key") == 9 {
				c.NoKey = true
			}
			return c
		})
		calls := rapid.SliceOfN(call, 1, w.MaxSteps).Draw(t, "calls")
		p := model.Plan{Steps: make([]model.Step, len(calls))}
		for i, c := range calls {
			p.Steps[i] = model.Step{Kind: model.StepCall, Calls: []model.Call{c}}
		}
		return p
	})
}
