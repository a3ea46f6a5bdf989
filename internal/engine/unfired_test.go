package engine

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Issue 16.11: an inconclusive run names, for each fault kind that did not
// always fire, why it first did not.
func TestUnfiredKindsSayWhy(t *testing.T) {
	counts := map[model.Fault]faultkind.FaultCount{
		model.FaultCrash:     {Planned: 3, Fired: 1},
		model.FaultDBStall:   {Planned: 2, Fired: 2},
		model.FaultLoseReply: {Planned: 1, Fired: 0},
	}
	why := map[model.Fault]string{
		model.FaultCrash: "the service answered 400 before it wrote to tickets (a call it refuses writes nothing), so the replica was not killed",
	}
	got := unfiredKinds(counts, why)
	for _, want := range []string{"crash fired 1 of 3: the service answered 400 before it wrote to tickets", "lose-reply fired 0 of 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("unfired kinds %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "db-stall") {
		t.Errorf("unfired kinds %q name db-stall, which always fired", got)
	}
}
