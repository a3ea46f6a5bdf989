package usable

import (
	"fmt"
	"strings"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// IdentifierNotes say what contract c's identifier formats leave out of
// a run drawn in world w: the key shapes whose keys the format does not admit (the
// folded-key transition is then exercised by fewer shapes, or none), and
// the tenants that fixed tenant values bound.
func IdentifierNotes(c model.Contract, w gen.World) []string {
	var notes []string
	if w.Shapes != nil && len(w.Shapes) < len(model.Shapes) {
		var out []string
		for _, s := range model.Shapes {
			if !strings.ContainsRune(string(w.Shapes), rune(s)) {
				out = append(out, identifiers.ShapeName(s))
			}
		}
		by := fmt.Sprintf("key_format %s", identifiers.KeyFormatOf(c))
		if c.KeyPattern != "" {
			by = fmt.Sprintf("key_pattern %q", c.KeyPattern)
		}
		notes = append(notes, fmt.Sprintf("key shapes not drawn, since %s admits none of their keys: %s (they are not exercised, not passed)", by, strings.Join(out, ", ")))
	}
	if n := len(c.Tenants); n > 0 {
		notes = append(notes, fmt.Sprintf("tenants: plans use the %d fixed tenant values (at most %d tenants a plan), and the namespace is carried by the key alone: a row a keyless call left counts as a write outside the namespace (IDEM-009)",
			n, w.MaxTenants))
	}
	return notes
}
