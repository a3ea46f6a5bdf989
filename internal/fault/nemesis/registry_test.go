package nemesis

import (
	"testing"

	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Model's registry and this package's two say the same kinds: every kind
// a call carries is a call fault here, every kind that is a step of its
// own (restart too) is a fault step here, and nothing here is missing from model's registry or stands
// at the other scope. A kind added to one registry and not the other
// would be planned and never done, or done and never planned.
func TestRegistriesAgree(t *testing.T) {
	for _, k := range faultkind.Kinds() {
		_, call := Call(k.Name)
		_, step := Step(k.Name)
		switch {
		case k.Scope == faultkind.OnCall && !call:
			t.Errorf("%s is a fault of a call in model's registry, and no call fault here", k.Name)
		case k.Scope == faultkind.AsStep && !step:
			t.Errorf("%s is a step in model's registry, and no fault step here", k.Name)
		case call && step:
			t.Errorf("%s is both a call fault and a fault step here", k.Name)
		}
	}
	for f := range callFaults {
		if k, ok := faultkind.KindOf(f); !ok || k.Scope != faultkind.OnCall {
			t.Errorf("call fault %s is not a fault of a call in model's registry", f)
		}
	}
	for f := range stepFaults {
		if k, ok := faultkind.KindOf(f); !ok || k.Scope != faultkind.AsStep {
			t.Errorf("fault step %s is not a step in model's registry", f)
		}
	}
}
