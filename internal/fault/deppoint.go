package fault

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// A point at a dependency (a Redis the service keeps its keys in) is a
// point of the call's commands there, at the RESP proxy in front of it:
// "before redis SET 1" (the call's first SET has not reached the
// dependency called redis), "after redis SET 1" (it has run; the service
// has not read the answer). The count is among the call's commands of
// that name, so a plan names the reservation (SET 1) and the completion
// (SET 2) of a design that writes its record twice. A Point holds it with
// Dep and Command set and Kind BeforeStatement or AfterStatement (a
// command is a dependency's statement).

// depPointRE reads "before|after NAME COMMAND N": NAME a dependency's
// name (process.dependencies), COMMAND as the proxy names it.
var depPointRE = regexp.MustCompile(`^(before|after) ([a-z][a-z0-9_]{0,31}) ([A-Z][A-Z0-9._-]{0,63}) ([1-9][0-9]*)$`)

// commandRE is a command name a plan can carry.
var commandRE = regexp.MustCompile(`^[A-Z][A-Z0-9._-]{0,63}$`)

// parseDepPoint reads a point at a dependency; ok is false for any other.
func parseDepPoint(s string) (Point, bool) {
	m := depPointRE.FindStringSubmatch(s)
	if m == nil {
		return Point{}, false
	}
	n, err := strconv.Atoi(m[4])
	if err != nil {
		return Point{}, false
	}
	kind := pgproxy.BeforeStatement
	if m[1] == "after" {
		kind = pgproxy.AfterStatement
	}
	return Point{Kind: kind, N: n, Dep: m[2], Command: m[3]}, true
}

func (p Point) depString() string {
	w := "before"
	if p.Kind == pgproxy.AfterStatement {
		w = "after"
	}
	return fmt.Sprintf("%s %s %s %d", w, p.Dep, p.Command, p.N)
}

// DepPointOf is the point a step of a call's trace at dependency dep is,
// and whether a plan can name it (a command whose name is no word of
// capitals cannot be).
func DepPointOf(dep string, s respproxy.Step) (Point, bool) {
	kind := pgproxy.BeforeStatement
	if s.Kind == respproxy.AfterCommand {
		kind = pgproxy.AfterStatement
	}
	return Point{Kind: kind, N: s.N, Dep: dep, Command: s.Command}, commandRE.MatchString(s.Command)
}

// matchesDep reports whether pt, at the proxy of the point's dependency,
// is the point.
func (p Point) matchesDep(pt respproxy.Point) bool {
	q, _ := DepPointOf(p.Dep, respproxy.Step{Kind: pt.Kind, Command: pt.Command, N: pt.N})
	return q == p
}

// holdAtDep holds the call at a point of its commands at the dependency
// the point names, at the RESP proxy in front of it.
func holdAtDep(env CallEnv, want Point, first func() bool, release chan struct{}) holdAt {
	at := holdAt{needs: fmt.Sprintf("a service that idemstress starts, with a dependency %s that speaks RESP (process.dependencies), which it reaches through idemstress's RESP proxy", want.Dep),
		none: fmt.Sprintf("no command of the call's carried its key or tag to %s", want.Dep)}
	tie := env.DepCall(want.Dep)
	if tie == nil {
		return at
	}
	tie.SetAt(func(pt respproxy.Point) respproxy.Action {
		if want.matchesDep(pt) && first() {
			return respproxy.Hold(release)
		}
		return respproxy.Continue
	})
	at.undo = func() { tie.SetAt(nil) }
	at.passed = func() []string { return DepPointNames(want.Dep, tie.Trace()) }
	return at
}

// DepPointNames are the names of the points of a call's trace at
// dependency dep that a plan can name, in order, each once.
func DepPointNames(dep string, trace []respproxy.Step) []string {
	var names []string
	for _, s := range trace {
		if p, ok := DepPointOf(dep, s); ok && !slices.Contains(names, p.String()) {
			names = append(names, p.String())
		}
	}
	return names
}
