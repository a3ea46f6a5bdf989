package fault

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/model"
)

// CrashAfterCommit sends the call to replica 0 through its fault proxy,
// which reads the service's complete answer and withholds it (as for a
// lost reply); once the client's call has ended so, the replica is
// SIGKILLed. The kill lands after the service did everything it does
// before answering (for a service that writes its effects and its key
// record in one transaction: after the commit) and before its client
// heard anything; the retry after the restart must replay. The fault
// fires when the service answered 2xx, the work done (a 2xx server error
// is none). The replica stays
// down until a restart step (the generator plans one).
func CrashAfterCommit(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	p, replicas := env.Proxy(), env.Replicas()
	if replicas == nil || p == nil {
		return CallOutcome{}, needs(call.Fault, "a service that idemstress starts, behind the fault proxy")
	}
	out, rep, ok, err := throughProxy(ctx, env, p, call, httpproxy.LoseReply)
	if err != nil {
		return out, err
	}
	if err := replicas.Kill(0); err != nil {
		return out, infrastructure(ctx, call.Fault, err)
	}
	out.Down = true
	switch {
	case !ok:
		out.Note = "the call never reached the fault proxy"
	case !rep.Fired:
		out.Note = rep.Note
	case rep.Status < 200 || rep.Status > 299:
		out.Note = fmt.Sprintf("the service answered %d, so no work of the call's had committed when the replica was killed", rep.Status)
	case len(out.Ops) == 1 && out.Ops[0].Out.ServerError():
		// A 2xx server error (answers.server_error) is no work done either.
		out.Note = fmt.Sprintf("the service answered %d with a server error, so no work of the call's had committed when the replica was killed", rep.Status)
	default:
		out.Fired, out.CutOff = true, true
	}
	return out, nil
}
