package stress

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
)

// refusals: and a rule's required: are read, a policy that is none of
// the three is refused naming them, and the world breaks every rule the
// contract can break, or none under refusals: untested.
func TestRefusalsContract(t *testing.T) {
	sample := string(ticketsvc.Contract)
	for _, tc := range []struct {
		extra  string
		policy model.Refusals
		broken int
	}{
		// The sample's rules: /channel's enum, /priority's range, /subject required.
		{"", "", 3},
		{"refusals: not-stored\n", "", 3},
		{"refusals: stored\n", model.RefusalsStored, 3},
		{"refusals: untested\n", model.RefusalsUntested, 0},
	} {
		cfg, err := Parse("contract.yaml", []byte(sample+tc.extra))
		if err != nil {
			t.Fatalf("%q: %v", tc.extra, err)
		}
		if cfg.Contract.Refusals != tc.policy || !cfg.Contract.Fields["/subject"].Required {
			t.Errorf("%q: refusals %q, rules %+v", tc.extra, cfg.Contract.Refusals, cfg.Contract.Fields)
		}
		if err := cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		if cfg.World.Broken != tc.broken {
			t.Errorf("%q: the world breaks %d rules, want %d", tc.extra, cfg.World.Broken, tc.broken)
		}
	}
	_, err := Parse("contract.yaml", []byte(sample+"refusals: replayed\n"))
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), `refusals: "replayed"`) || !strings.Contains(err.Error(), "untested") {
		t.Errorf("bad refusals: %v; want a contract error naming the three policies", err)
	}
	_, err = Parse("contract.yaml", []byte(strings.Replace(sample, "{required: true}", "{requird: true}", 1)))
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "required)") {
		t.Errorf("misspelt required: %v; want the rule's fields listed", err)
	}
}
