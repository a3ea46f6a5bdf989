package stress

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// What the engine learns from the session before the search
// (internal/engine's points.go): the failures a coded fault can deal
// where the run stands, and the points of an unfaulted call's work.

// coded reports whether fault f names the failure it deals.
func coded(f model.Fault) bool { k, _ := faultkind.KindOf(f); return k.Coded }

// codesOf are the failures fault f deals where the session stands; none
// for a fault that names no failure.
func (s *Session) codesOf(f model.Fault) []string {
	switch {
	case f == model.FaultDepError:
		names := slices.Sorted(maps.Keys(s.deps))
		var codes []string
		for _, d := range names {
			for _, c := range fault.DepErrorCodes {
				codes = append(codes, fault.DepErrorPoint(d, c))
			}
		}
		return codes
	case coded(f) && s.db != nil:
		return slices.Clone(fault.DBErrorCodes)
	}
	return nil
}

// tracesOf sends call n times, one after the other and unfaulted, in
// namespace ns, and returns the points each one's database work passed
// at the proxy, the names of those its commands passed at the
// dependencies' (deppoints.go), and their answers.
func (s *Session) tracesOf(ctx context.Context, ns model.Namespace, call model.Call, n int) ([][]pgproxy.Step, [][]string, []model.Op, error) {
	x := s.exec
	var traces [][]pgproxy.Step
	var deps []learnedDeps
	x.OnTrace = func(_ model.Call, t []pgproxy.Step) { traces, deps = append(traces, t), append(deps, learnedDeps{}) }
	// A call's traces at the dependencies come right after its database's.
	x.OnDepTrace = func(_ model.Call, dep string, t []respproxy.Step) {
		if len(deps) > 0 {
			deps[len(deps)-1][dep] = t
		}
	}
	var plan model.Plan
	for range n {
		plan.Steps = append(plan.Steps, model.Step{Kind: model.StepCall, Calls: []model.Call{call}})
	}
	h, err := x.Execute(ctx, ns, plan, time.Now())
	if err != nil {
		return nil, nil, nil, err
	}
	if len(h.Ops) != n || len(traces) != n {
		return nil, nil, nil, fmt.Errorf("%d answers and %d traces to %d calls", len(h.Ops), len(traces), n)
	}
	names := make([][]string, n)
	for i, d := range deps {
		names[i] = d.names()
	}
	return traces, names, h.Ops, nil
}
