package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// The points a fault that lands at a point of a call's database work
// (crash-at) may name are learned before the search, from one unfaulted
// first call of an action of the run's own and its unfaulted retry, as
// crash-consistency testers enumerate crash points from a trace: each
// call passes every point of its work at the database proxy
// (pgproxy.Call.Trace). They become the world's Points and RetryPoints,
// so that a plan names its point as data (shrinking and replay keep it;
// a retry's reads "retry after statement 1"), and each is dealt a plan of
// its own (gen.Deals), so that one run tries every point of both
// transitions; the coverage counts each point tried (model.PointFired).
// A retry's work differs from a first call's (a key-first design replays
// from its key row), and a crash in it must leave the action as the first
// call left it. A burst's calls share the action's markers at the proxy,
// so a point of one of them is not told apart yet: no burst is crashed
// at a point.

// A fault that names its failure (model.FaultKind.Coded: db-error's
// SQLSTATE, dep-error's Redis failure) names it as plan data the same
// way, from the failures the database proxy can deal (fault.DBErrorCodes)
// or a RESP proxy at each dependency (fault.DepErrorCodes), each dealt a
// plan of its own and counted in the coverage as a point is; where no
// database proxy stands db-error ends the session (57P01) and names
// nothing.

// atPoint reports whether fault f lands at a point the plan names.
func atPoint(f model.Fault) bool { k, _ := model.KindOf(f); return k.AtPoint }

// dealCodes makes each fault that names its failure draw and deal each
// failure it can deal where the run stands: db-error each the database
// proxy can answer a statement with, when one stands between the service
// and its database; dep-error each one at each dependency a RESP proxy
// stands in front of ("redis OOM").
func (r *runner) dealCodes() {
	if r.session == nil {
		return
	}
	var codes []string
	for _, f := range r.cfg.Faults {
		fc := r.session.CodesOf(f)
		if len(fc) == 0 && model.NamesItsTarget(f) {
			r.note(fmt.Sprintf("%s: no dependency speaks RESP (a redis:// or valkey:// url, or a redis-server command), so no RESP proxy stands where it would fail a command: it was not planned", f))
		}
		for _, c := range fc {
			r.coverage[model.PointFired(f, c)] = 0
		}
		codes = append(codes, fc...)
	}
	if len(codes) == 0 {
		return
	}
	r.cfg.World.Codes = codes
	r.deals = gen.Deals(r.cfg.World)
}

// learnPoints learns the points of a first call's database work, and of
// its retry's, when the run plans a fault that lands at one, and deals
// each a plan.
func (r *runner) learnPoints(ctx context.Context) {
	i := slices.IndexFunc(r.cfg.Faults, atPoint)
	if i < 0 || r.session == nil || !r.session.DBProxy() {
		return
	}
	f := r.cfg.Faults[i]
	call := model.Call{Tenant: gen.TenantName(0), Key: gen.KeyName(0)}
	traces, deps, ops, err := r.session.TracesOf(ctx, model.Namespace(r.run+"-points-"), call, 2)
	switch {
	case err != nil:
		r.note(fmt.Sprintf("%s: the unfaulted call its points are learned from failed (%v): no point was tried", f, err))
		return
	case ops[0].Out.Kind != model.OK:
		r.note(fmt.Sprintf("%s: the unfaulted call its points are learned from was answered %d, not created: no point was tried", f, ops[0].Out.Status))
		return
	case len(traces[0]) == 0 && len(deps[0]) == 0:
		r.note(fmt.Sprintf("%s: no statement of an unfaulted call carried its key or tag to the database: no point was tried (does the service write the key it is sent?)", f))
		return
	}
	r.cfg.World.Points = append(pointNames(traces[0]), deps[0]...)
	// A retry's points are the replay's: learned only from a retry the
	// service answered ok, whose work passed the proxy.
	switch {
	case ops[1].Out.Kind != model.OK:
		r.note(fmt.Sprintf("%s: the unfaulted retry a retry's points are learned from was answered %d, not replayed: no retry's point was tried", f, ops[1].Out.Status))
	case len(traces[1]) > 0 || len(deps[1]) > 0:
		r.cfg.World.RetryPoints = append(pointNames(traces[1]), deps[1]...)
	}
	r.deals = gen.Deals(r.cfg.World)
	for _, p := range r.cfg.World.Points {
		r.coverage[model.PointFired(f, p)] = 0
	}
	for _, p := range r.cfg.World.RetryPoints {
		r.coverage[model.PointFired(f, model.RetryPoint(p))] = 0
	}
}

// pointNames are the points a trace passed, each once, in its order.
func pointNames(trace []pgproxy.Step) []string {
	var points []string
	for _, s := range trace {
		if p := fault.PointName(s); !slices.Contains(points, p) {
			points = append(points, p)
		}
	}
	return points
}

// pointsTried notes how many of the points learned, and of the failures
// dealt, the run tried.
func (r *runner) pointsTried() {
	if i := slices.IndexFunc(r.cfg.Faults, atPoint); i >= 0 && len(r.cfg.World.Points) > 0 {
		msg := r.tried(r.cfg.Faults[i], r.cfg.World.Points, "points of a first call's work")
		if ps := r.cfg.World.RetryPoints; len(ps) > 0 {
			retry := make([]string, len(ps))
			for j, p := range ps {
				retry[j] = model.RetryPoint(p)
			}
			msg += "; " + strings.TrimPrefix(r.tried(r.cfg.Faults[i], retry, "of a retry's"), string(r.cfg.Faults[i])+": tried ")
		}
		r.note(msg)
	}
	for _, f := range r.cfg.Faults {
		codes := slices.DeleteFunc(slices.Clone(r.cfg.World.Codes), func(c string) bool { return !model.CodeFor(f, c) })
		if len(codes) > 0 {
			r.note(r.tried(f, codes, "failures"))
		}
	}
}

// tried says how many of fault f's points (or failures) the coverage
// counts tried: "crash-at: tried 9 of 10 points … (not tried: after tx 1)".
func (r *runner) tried(f model.Fault, points []string, what string) string {
	var untried []string
	for _, p := range points {
		if r.coverage[model.PointFired(f, p)] == 0 {
			untried = append(untried, p)
		}
	}
	n := len(points)
	msg := fmt.Sprintf("%s: tried %d of %d %s", f, n-len(untried), n, what)
	if len(untried) > 0 {
		msg += " (not tried: " + strings.Join(untried, ", ") + ")"
	}
	return msg
}
