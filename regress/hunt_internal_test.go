package regress

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/process"
)

// Every field of a Hunt reaches the Spec (apply) and comes back from it
// (huntOf): a field added to Hunt and left out of either fails here. The
// process section a Spec shares with its caller is copied, not changed.
func TestHuntRoundTripsThroughTheSpec(t *testing.T) {
	h := Hunt{Replicas: 3, Sync: client.Naive, DBStall: "tickets"}
	v := reflect.ValueOf(h)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("Hunt.%s is zero here: give it a value, so that this test sees it carried", v.Type().Field(i).Name)
		}
	}
	shared := &process.Spec{Replicas: 1}
	s := contract.Spec{Process: shared, Sync: client.LastByte}
	if w := h.apply(&s); w != "" {
		t.Errorf("warning %q", w)
	}
	if got := huntOf(s); got != h {
		t.Errorf("hunt back from the Spec %+v, want %+v", got, h)
	}
	if shared.Replicas != 1 {
		t.Errorf("the caller's process section changed in place: %d replicas", shared.Replicas)
	}
	// Without a process section, the replicas cannot be applied: said so.
	bare := contract.Spec{}
	if w := h.apply(&bare); !strings.Contains(w, "3 replicas") {
		t.Errorf("no process section: warning %q", w)
	}
	if got, want := huntOf(bare), (Hunt{Sync: h.Sync, DBStall: h.DBStall}); got != want {
		t.Errorf("no process section: hunt %+v, want %+v", got, want)
	}
}
