package ticketsvc_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// key-first is a correct design: the acceptance card passes, in every
// layout, and it runs only over the schema whose key reference is checked
// at commit.
func TestKeyFirst(t *testing.T) {
	forEachLayout(t, func(t *testing.T, layout ticketsvc.Layout) {
		if got := acceptanceCard(t, newEnv(t, layout, "key-first")); got != nil {
			t.Errorf("failed assertions %q", got)
		}
	})
	if !slices.Contains(ticketsvc.CorrectModes(), "key-first") {
		t.Fatalf("CorrectModes() = %q", ticketsvc.CorrectModes())
	}
	e := serve(t, newPool(t, ticketsvc.LayoutKeys), ticketsvc.Options{Bug: "key-first"})
	if a := e.mustPost("A", "k", `{"subject":"x"}`); a.status != http.StatusInternalServerError {
		t.Errorf("key-first over the default schema answered %d %s, want 500", a.status, a.body)
	}
}
