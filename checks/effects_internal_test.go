package checks

import (
	"testing"

	"github.com/idemstress/idemstress/internal/effects"
)

// TestEffectKindsAreChecks: every kind of finding internal/effects makes
// is one check of the catalogue, so that none becomes a nameless
// violation that ranks last.
func TestEffectKindsAreChecks(t *testing.T) {
	for k := effects.Kind(1); k < effects.NumKinds; k++ {
		id, ok := effectKinds[k]
		if !ok {
			t.Errorf("effects kind %d has no check in effectKinds", k)
			continue
		}
		if c, _ := Lookup(id); c.Name == "" {
			t.Errorf("effects kind %d maps to %s, which is not in the catalogue", k, id)
		}
	}
}
