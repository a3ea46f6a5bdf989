package zoo_test

import (
	"slices"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/model"
)

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) { pgtest.Main(m, &cluster) }

// startSample serves the sample service in one mode and layout over a new
// database.
func startSample(t *testing.T, mode string, layout ticketsvc.Layout) *sample.Service {
	t.Helper()
	svc, err := sample.Start(t.Context(), pgtest.NewDatabase(t, cluster), mode, layout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// call is a step of one call.
func call(tenant, key string, variant int) model.Step {
	return model.Step{Kind: model.StepCall, Calls: []model.Call{{Tenant: tenant, Key: key, Variant: variant}}}
}

// burst releases the calls of single-call steps together.
func burst(steps ...model.Step) model.Step {
	b := model.Step{Kind: model.StepBurst}
	for _, s := range steps {
		b.Calls = append(b.Calls, s.Calls...)
	}
	return b
}

// oneEncoding marks every re-encoded call as encoding 1: which of the
// byte-different encodings a shrink ends on does not matter.
func oneEncoding(p model.Plan) model.Plan {
	q := model.Plan{Steps: make([]model.Step, len(p.Steps))}
	for i, s := range p.Steps {
		q.Steps[i] = model.Step{Kind: s.Kind, Calls: append([]model.Call(nil), s.Calls...)}
		for j := range q.Steps[i].Calls {
			q.Steps[i].Calls[j].Encoding = min(q.Steps[i].Calls[j].Encoding, 1)
		}
	}
	return q
}

// sameCalls: the plans make the same calls, one at a time, in any order
// (two keys that fold into one action show it either way round).
func sameCalls(p, q model.Plan) bool {
	calls := func(p model.Plan) []string {
		var out []string
		for _, s := range p.Steps {
			if s.Kind != model.StepCall {
				return nil
			}
			out = append(out, s.Calls[0].String())
		}
		slices.Sort(out)
		return out
	}
	return len(p.Steps) == len(q.Steps) && slices.Equal(calls(p), calls(q))
}
