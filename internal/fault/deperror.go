package fault

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// DepErrorCodes are the failures dep-error deals at a dependency that
// speaks RESP (a Redis), through the RESP proxy in front of it, in the
// order shrinking prefers them: Redis's own error replies, as a server
// out of memory (OOM), a replica promoted under the client (READONLY), a
// server still reading its data back after a restart (LOADING), a script
// that will not stop (BUSY) and a plain error (ERR), answered in the
// command's place so that nothing of it runs; and a cut connection
// ("cut"). Client libraries retry some on their own (go-redis: LOADING,
// READONLY, a lost connection), so a service sees those only when its
// client gives up. A run deals each at each dependency (gen.World.DepCodes);
// the plan names it with the dependency (Call.Point: "redis OOM").
var DepErrorCodes = []string{"OOM", "READONLY", "LOADING", "BUSY", "ERR", DepCut}

// DepCut is the dep-error failure that cuts the call's connection to the
// dependency instead of answering its command.
const DepCut = "cut"

// depErrorRE reads dep-error's point: "NAME CODE", NAME a dependency's
// name (process.dependencies).
var depErrorRE = regexp.MustCompile(`^([a-z][a-z0-9_]{0,31}) ([A-Za-z]+)$`)

// DepErrorPoint is dep-error's point for the failure code at dependency
// dep: "redis OOM".
func DepErrorPoint(dep, code string) string { return dep + " " + code }

// ParseDepError reads dep-error's point into its dependency and failure,
// refusing a failure dep-error cannot deal.
func ParseDepError(point string) (dep, code string, err error) {
	m := depErrorRE.FindStringSubmatch(point)
	if m == nil || !slices.Contains(DepErrorCodes, m[2]) {
		return "", "", fmt.Errorf("dep-error failure %q: want a dependency's name (process.dependencies) and one of %s, as \"redis OOM\"",
			point, strings.Join(DepErrorCodes, ", "))
	}
	return m[1], m[2], nil
}

// depReads are the commands that only read: dep-error fails the call's
// first command that is none of these, its first write (a reservation
// SET NX, a record's SET, an EXEC, a script), as db-error fails its first
// write to the last effect table.
var depReads = []string{"GET", "MGET", "GETRANGE", "STRLEN", "EXISTS", "TTL", "PTTL", "TYPE",
	"HGET", "HMGET", "HGETALL", "HEXISTS", "HLEN", "SCAN", "KEYS", "PING", "SELECT", "HELLO", "AUTH", "CLIENT", "WATCH"}

// depWrite reports whether a call's command named name may write.
func depWrite(name string) bool { return !slices.Contains(depReads, name) }

// DepErrorAt is a call's hook at a dependency's proxy (respproxy.Call.SetAt)
// that answers the call's first write command, before it runs, with
// respproxy.Error(code), or cuts the connection for DepCut, once; every
// other command passes.
func DepErrorAt(code string) func(respproxy.Point) respproxy.Action {
	var once sync.Once
	return func(pt respproxy.Point) respproxy.Action {
		act := respproxy.Continue
		if pt.Kind != respproxy.BeforeCommand || !depWrite(pt.Command) {
			return act
		}
		once.Do(func() {
			act = respproxy.Cut
			if code != DepCut {
				act = respproxy.Error(code)
			}
		})
		return act
	}
}

// DepError fails the call's first write to the dependency its plan names
// once, as a passing failure of the service's key store would, and the
// service answers as it answers one; what the call's retries must get is
// the contract's errors: policy (checks.ErrorReplay). It fires only when
// the failure was delivered (respproxy.Call.Injected).
func DepError(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	if call.Point == "" {
		// A run deals dep-error only where a RESP proxy stands (its
		// failures name a dependency); a plan drawn without them names none.
		return CallOutcome{Note: "dep-error names no dependency and failure (\"redis OOM\"): no RESP proxy stood in front of a dependency, so nothing was failed"}, nil
	}
	dep, code, err := ParseDepError(call.Point)
	if err != nil {
		return CallOutcome{}, needs(call.Fault, err.Error())
	}
	tied := env.DepCall(dep)
	if tied == nil {
		return CallOutcome{}, needs(call.Fault, fmt.Sprintf("a service that idemstress starts, with a dependency %s that speaks RESP (process.dependencies), which it reaches through idemstress's RESP proxy", dep))
	}
	tied.SetAt(DepErrorAt(code))
	defer tied.SetAt(nil)
	op, err := env.Send(ctx, call, 0, nil)
	out := CallOutcome{Ops: []model.Op{op}, Fired: len(tied.Injected()) > 0}
	if !out.Fired {
		out.Note = fmt.Sprintf("no write command of the call's carried its key or tag to %s (a command other than a read: SET, EXEC, EVAL …), so none was failed", dep)
		if op.Out.Status >= 400 && op.Out.Status < 500 {
			out.Note = fmt.Sprintf("the service answered %d before it wrote to %s (a call it refuses writes nothing), so no command of it was failed", op.Out.Status, dep)
		}
	}
	return out, err
}
