package stress

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// The points a fault that lands at a point of a call's database work
// (crash-at) may name are learned before the search, from one unfaulted
// first call of an action of the run's own, as crash-consistency testers
// enumerate crash points from a trace: the call passes every point of
// its work at the database proxy (pgproxy.Call.Trace). They become the
// world's Points, so that a plan names its point as data (shrinking and
// replay keep it), and each is dealt a plan of its own (gen.Deals), so
// that one run tries every point; the coverage counts each point tried
// (model.PointFired). A first call is the only transition crash-at lands
// on (model.FaultKind.FirstCall): a replay's work writes nothing a crash
// could cut in two.

// atPoint reports whether fault f lands at a point the plan names.
func atPoint(f model.Fault) bool { k, _ := model.KindOf(f); return k.AtPoint }

// learnPoints learns the points of a first call's database work when the
// run plans a fault that lands at one, and deals each a plan.
func (r *runner) learnPoints(ctx context.Context) {
	i := slices.IndexFunc(r.cfg.Faults, atPoint)
	if i < 0 || r.session == nil || r.session.db == nil {
		return
	}
	f := r.cfg.Faults[i]
	call := model.Call{Tenant: gen.TenantName(0), Key: gen.KeyName(0)}
	trace, deps, op, err := r.session.traceOf(ctx, model.Namespace(r.run+"-points-"), call)
	switch {
	case err != nil:
		r.note(fmt.Sprintf("%s: the unfaulted call its points are learned from failed (%v): no point was tried", f, err))
		return
	case op.Out.Kind != model.OK:
		r.note(fmt.Sprintf("%s: the unfaulted call its points are learned from was answered %d, not created: no point was tried", f, op.Out.Status))
		return
	case len(trace) == 0 && len(deps) == 0:
		r.note(fmt.Sprintf("%s: no statement of an unfaulted call carried its key or tag to the database: no point was tried (does the service write the key it is sent?)", f))
		return
	}
	var points []string
	for _, s := range trace {
		if p := fault.PointName(s); !slices.Contains(points, p) {
			points = append(points, p)
		}
	}
	points = append(points, deps...)
	r.cfg.World.Points = points
	r.deals = gen.Deals(r.cfg.World)
	for _, p := range points {
		r.coverage[model.PointFired(f, p)] = 0
	}
}

// pointsTried notes how many of the points learned the run tried.
func (r *runner) pointsTried() {
	i := slices.IndexFunc(r.cfg.Faults, atPoint)
	if i < 0 || len(r.cfg.World.Points) == 0 {
		return
	}
	f := r.cfg.Faults[i]
	var untried []string
	for _, p := range r.cfg.World.Points {
		if r.coverage[model.PointFired(f, p)] == 0 {
			untried = append(untried, p)
		}
	}
	n := len(r.cfg.World.Points)
	msg := fmt.Sprintf("%s: tried %d of %d points of a first call's database work", f, n-len(untried), n)
	if len(untried) > 0 {
		msg += " (not tried: " + strings.Join(untried, ", ") + ")"
	}
	r.note(msg)
}

// traceOf sends one unfaulted call in namespace ns and returns the points
// its database work passed at the proxy, the names of those its commands
// passed at the dependencies' (deppoints.go), and its answer.
func (s *Session) traceOf(ctx context.Context, ns model.Namespace, call model.Call) ([]pgproxy.Step, []string, model.Op, error) {
	x := s.exec
	var trace []pgproxy.Step
	x.OnTrace = func(_ model.Call, t []pgproxy.Step) { trace = t }
	deps := depTraces(&x)
	h, err := x.Execute(ctx, ns, model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{call}}}}, time.Now())
	if err != nil {
		return nil, nil, model.Op{}, err
	}
	if len(h.Ops) != 1 {
		return nil, nil, model.Op{}, fmt.Errorf("%d answers to one call", len(h.Ops))
	}
	return trace, deps.names(), h.Ops[0], nil
}
