package engine

import (
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// Every run's name leaves room for its cases, under a UUID key and a
// namespace of the run's own (stress's TestIdentifierFieldErrors refuses
// a longer one).
func TestRunNameFitsAUUID(t *testing.T) {
	s, err := contract.Parse("ids.yaml", append(append([]byte{}, ticketsvc.Contract...), "key_format: uuid\n"...))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Settings{Spec: s.WithDefaults(), Namespace: "n1"}
	for seed := range uint64(200) {
		if run := runName(cfg, seed); !identifiers.NamespaceFits(cfg.Contract, model.Namespace(run+"-1000000-")) {
			t.Fatalf("run name %q leaves no room for a million cases in a UUID", run)
		}
	}
}
