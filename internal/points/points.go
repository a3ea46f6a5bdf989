package points

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/model/faultkind"
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

// Dealer learns the points and failures of a run's faults before its
// search (Learn, DealCodes) and says after it how many were tried
// (Tried). World and Coverage are the run's: Coverage, a map, counts
// each point dealt in place, and the run reads World back and deals its
// plans again (gen.Deals).
type Dealer struct {
	// Session is where the points are learned and the failures dealt;
	// nil learns and deals none.
	Session Source
	Faults  []model.Fault
	World   gen.World
	// Coverage counts each point and failure tried (model.PointFired).
	Coverage coverage.Coverage
	// NS is the namespace of the unfaulted calls the points are learned
	// from.
	NS   model.Namespace
	Note func(string)
}

// Source is what points are learned from: the run's session.
type Source interface {
	// CodesOf are the failures fault f deals where the session stands;
	// none for a fault that names no failure.
	CodesOf(f model.Fault) []string
	// DBProxy says a database proxy stands between the service and its
	// database, where the points of a call's work are learned.
	DBProxy() bool
	// TracesOf sends call n times, one after the other and unfaulted, in
	// namespace ns, and returns the points each one's database work
	// passed at the proxy, the names of those its commands passed at the
	// dependencies', and their answers.
	TracesOf(ctx context.Context, ns model.Namespace, call model.Call, n int) ([][]pgproxy.Step, [][]string, []model.Op, error)
}

// atPoint reports whether fault f lands at a point the plan names.
func atPoint(f model.Fault) bool { k, _ := faultkind.KindOf(f); return k.AtPoint }

// DealCodes makes each fault that names its failure draw and deal each
// failure it can deal where the run stands: db-error each the database
// proxy can answer a statement with, when one stands between the service
// and its database; dep-error each one at each dependency a RESP proxy
// stands in front of ("redis OOM").
func (r *Dealer) DealCodes() {
	if r.Session == nil {
		return
	}
	var codes []string
	for _, f := range r.Faults {
		fc := r.Session.CodesOf(f)
		if len(fc) == 0 && faultkind.NamesItsTarget(f) {
			r.Note(fmt.Sprintf("%s: no dependency speaks RESP (a redis:// or valkey:// url, or a redis-server command), so no RESP proxy stands where it would fail a command: it was not planned", f))
		}
		for _, c := range fc {
			r.Coverage[coverage.PointFired(f, c)] = 0
		}
		codes = append(codes, fc...)
	}
	if len(codes) == 0 {
		return
	}
	r.World.Codes = codes
}

// Learn learns the points of a first call's database work, and of
// its retry's, when the run plans a fault that lands at one, and deals
// each a plan.
func (r *Dealer) Learn(ctx context.Context) {
	i := slices.IndexFunc(r.Faults, atPoint)
	if i < 0 || r.Session == nil || !r.Session.DBProxy() {
		return
	}
	f := r.Faults[i]
	call := model.Call{Tenant: gen.TenantName(0), Key: gen.KeyName(0)}
	traces, deps, ops, err := r.Session.TracesOf(ctx, r.NS, call, 2)
	switch {
	case err != nil:
		r.Note(fmt.Sprintf("%s: the unfaulted call its points are learned from failed (%v): no point was tried", f, err))
		return
	case ops[0].Out.Kind != model.OK:
		r.Note(fmt.Sprintf("%s: the unfaulted call its points are learned from was answered %d, not created: no point was tried", f, ops[0].Out.Status))
		return
	case len(traces[0]) == 0 && len(deps[0]) == 0:
		r.Note(fmt.Sprintf("%s: no statement of an unfaulted call carried its key or tag to the database: no point was tried (does the service write the key it is sent?)", f))
		return
	}
	r.World.Points = append(pointNames(traces[0]), deps[0]...)
	// A retry's points are the replay's: learned only from a retry the
	// service answered ok, whose work passed the proxy.
	switch {
	case ops[1].Out.Kind != model.OK:
		r.Note(fmt.Sprintf("%s: the unfaulted retry a retry's points are learned from was answered %d, not replayed: no retry's point was tried", f, ops[1].Out.Status))
	case len(traces[1]) > 0 || len(deps[1]) > 0:
		r.World.RetryPoints = append(pointNames(traces[1]), deps[1]...)
	}
	for _, p := range r.World.Points {
		r.Coverage[coverage.PointFired(f, p)] = 0
	}
	for _, p := range r.World.RetryPoints {
		r.Coverage[coverage.PointFired(f, coverage.RetryPoint(p))] = 0
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

// Tried notes how many of the points learned, and of the failures
// dealt, the run tried.
func (r *Dealer) Tried() {
	if i := slices.IndexFunc(r.Faults, atPoint); i >= 0 && len(r.World.Points) > 0 {
		msg := r.tried(r.Faults[i], r.World.Points, "points of a first call's work")
		if ps := r.World.RetryPoints; len(ps) > 0 {
			retry := make([]string, len(ps))
			for j, p := range ps {
				retry[j] = coverage.RetryPoint(p)
			}
			msg += "; " + strings.TrimPrefix(r.tried(r.Faults[i], retry, "of a retry's"), string(r.Faults[i])+": tried ")
		}
		r.Note(msg)
	}
	for _, f := range r.Faults {
		codes := slices.DeleteFunc(slices.Clone(r.World.Codes), func(c string) bool { return !faultkind.CodeFor(f, c) })
		if len(codes) > 0 {
			r.Note(r.tried(f, codes, "failures"))
		}
	}
}

// tried says how many of fault f's points (or failures) the coverage
// counts tried: "crash-at: tried 9 of 10 points … (not tried: after tx 1)".
func (r *Dealer) tried(f model.Fault, points []string, what string) string {
	var untried []string
	for _, p := range points {
		if r.Coverage[coverage.PointFired(f, p)] == 0 {
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
