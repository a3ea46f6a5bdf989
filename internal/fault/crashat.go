package fault

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// CrashAt sends the call to replica 0 and SIGKILLs the replica exactly at
// the point of the call's database work its plan names (Call.Point): the
// PostgreSQL proxy holds the call's session there (nothing of the
// statement or COMMIT reaches the server before a point "before", nothing
// of the answer reaches the service after a point "after") while the
// replica is killed; the server then rolls back whatever was left open.
// The replica stays down until a restart step (the generator plans one).
func CrashAt(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	want, err := ParsePoint(call.Point)
	if err != nil {
		return CallOutcome{}, fmt.Errorf("fault: %s: %w", call.Fault, err)
	}
	replicas := env.Replicas()
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// first is true once, at the first time the point is reached: that
	// session is held there. Never released: the kill ends the client's
	// connection, and with it the hold and the server's session.
	first := func() (hold bool) {
		once.Do(func() { hold = true; close(reached) })
		return hold
	}
	var at holdAt
	if want.Dep != "" {
		at = holdAtDep(env, want, first, release)
	} else {
		at = holdAtDB(env, want, first, release)
	}
	if at.undo == nil || replicas == nil {
		return CallOutcome{}, needs(call.Fault, at.needs)
	}
	defer at.undo()
	var op model.Op
	var sendErr error
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		op, sendErr = env.Send(ctx, call, 0, nil)
	}()
	select {
	case <-reached:
		if err := replicas.Kill(0); err != nil {
			close(release) // let the call go on, so that Send returns
			<-sent
			return CallOutcome{Ops: []model.Op{op}}, infrastructure(ctx, call.Fault, err)
		}
		<-sent
		return CallOutcome{Ops: []model.Op{op}, Fired: true, Down: true, CutOff: true}, sendErr
	case <-sent:
	}
	out := CallOutcome{Ops: []model.Op{op}, Note: notReached(op, call.Point, at.passed(), at.none)}
	return out, sendErr
}

// holdAt is where crash-at holds its call: the hook set at the call's tie
// (undo takes it away; nil when the run has no such tie, and needs says
// what the fault needs), the names of the points the call passed, and
// what to say when it passed none.
type holdAt struct {
	undo   func()
	passed func() []string
	needs  string
	none   string
}

// holdAtDB holds the call at a point of its database work, at the
// PostgreSQL proxy.
func holdAtDB(env CallEnv, want Point, first func() bool, release chan struct{}) holdAt {
	at := holdAt{needs: "a service that idemstress starts, whose database it reaches through idemstress's PostgreSQL proxy",
		none: "no statement of the call's carried its key or tag through the database proxy"}
	tie := env.DBCall()
	if tie == nil {
		return at
	}
	tie.SetAt(func(pt pgproxy.Point) pgproxy.Action {
		if want.matches(pt) && first() {
			return pgproxy.Hold(release)
		}
		return pgproxy.Continue
	})
	at.undo = func() { tie.SetAt(nil) }
	at.passed = func() []string {
		var names []string
		for _, s := range tie.Trace() {
			names = append(names, PointName(s))
		}
		return names
	}
	return at
}

// notReached says why the call's work never passed the point
// (a Note: no times or PIDs).
func notReached(op model.Op, point string, names []string, none string) string {
	if op.Out.Status >= 400 && op.Out.Status < 500 {
		return fmt.Sprintf("the service answered %d without passing %s (a call it refuses writes nothing), so the replica was not killed", op.Out.Status, point)
	}
	if len(names) == 0 {
		return none + ", so it passed no point and the replica was not killed"
	}
	return fmt.Sprintf("the call's work never passed %s (it passed %s), so the replica was not killed", point, strings.Join(names, ", "))
}

// Point is a point of a call's database work as a plan names it.
type Point struct {
	Kind pgproxy.Kind
	// N is the call's statement (from 1, COMMIT counted) for a statement
	// point; its transaction (from 1) for a commit point, and the one that
	// ended for BetweenTransactions ("after tx 1"); for a point at a
	// dependency, the call's n-th command of its name there.
	N int
	// Dep and Command name a point at a dependency's command (deppoint.go):
	// "after redis SET 1"; "" for a point of the database work.
	Dep, Command string
}

var pointWords = map[pgproxy.Kind]string{
	pgproxy.BeforeStatement:     "before statement",
	pgproxy.AfterStatement:      "after statement",
	pgproxy.BeforeCommit:        "before commit",
	pgproxy.AfterCommit:         "after commit",
	pgproxy.BetweenTransactions: "after tx",
}

func (p Point) String() string {
	if p.Dep != "" {
		return p.depString()
	}
	return fmt.Sprintf("%s %d", pointWords[p.Kind], p.N)
}

// PointOf is the point a step of a call's trace is.
func PointOf(s pgproxy.Step) Point {
	switch s.Kind {
	case pgproxy.BeforeCommit, pgproxy.AfterCommit:
		return Point{Kind: s.Kind, N: s.Tx}
	case pgproxy.BetweenTransactions:
		return Point{Kind: s.Kind, N: s.Tx - 1}
	}
	return Point{Kind: s.Kind, N: s.Index}
}

// PointName is how a plan names the point a step of a call's trace is:
// "before statement 2", "after commit 1", "after tx 1".
func PointName(s pgproxy.Step) string { return PointOf(s).String() }

// ParsePoint reads a point as a plan names it, of a first call's work or
// of a retry's ("retry after statement 1": model.RetryPoint), which the
// proxy matches alike within the faulted call's own work.
func ParsePoint(s string) (Point, error) {
	p, _ := coverage.OfRetry(s)
	if dp, ok := parseDepPoint(p); ok {
		return dp, nil
	}
	for k, w := range pointWords {
		rest, ok := strings.CutPrefix(p, w+" ")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			break
		}
		return Point{Kind: k, N: n}, nil
	}
	return Point{}, fmt.Errorf("point %q: want before statement N, after statement N, before commit N, after commit N or after tx N, or before|after DEPENDENCY COMMAND N (after redis SET 1) (N from 1), each maybe after \"retry \"", s)
}

// matches reports whether pt is the point.
func (p Point) matches(pt pgproxy.Point) bool {
	return p.Dep == "" && pt.Kind == p.Kind && PointOf(pgproxy.Step{Kind: pt.Kind, Index: pt.Index, Tx: pt.Tx}) == p
}
