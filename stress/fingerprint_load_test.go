package stress_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/stress"
)

// changed_payload: is read into the contract, conflict by default, and a
// word it does not know is a contract error naming the field.
func TestChangedPayloadPolicy(t *testing.T) {
	sample := string(ticketsvc.Contract)
	for _, tc := range []struct {
		add      string
		replayed bool
	}{{"", false}, {"changed_payload: conflict\n", false}, {"changed_payload: replayed\n", true}} {
		c, err := stress.Parse("c.yaml", []byte(sample+"\n"+tc.add))
		if err != nil {
			t.Fatalf("%q: %v", tc.add, err)
		}
		if c.Contract.ChangedReplayed != tc.replayed {
			t.Errorf("%q: ChangedReplayed = %v", tc.add, c.Contract.ChangedReplayed)
		}
	}
	_, err := stress.Parse("c.yaml", []byte(sample+"\nchanged_payload: ignored\n"))
	if !errors.Is(err, stress.ErrContract) || !strings.Contains(err.Error(), "changed_payload") || !strings.Contains(err.Error(), "replayed") {
		t.Errorf("changed_payload: ignored: %v; want a contract error naming the field and its words", err)
	}
}
