package fault

import (
	"context"

	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/model"
)

// The faults the fault proxy does to a call on the wire (lose-reply,
// drop-request, double-delivery, delay): the call goes through the proxy
// in front of replica 0, asking for its fault by Header, and the proxy
// says whether it fired.

// Proxied sends the call through the fault proxy, asking for the fault
// the call carries.
func Proxied(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
	p := env.Proxy()
	if p == nil {
		return CallOutcome{}, needs(call.Fault, "the fault proxy, and the run has none")
	}
	out, rep, ok, err := throughProxy(ctx, env, p, call, string(call.Fault))
	switch {
	case err != nil:
		return out, err
	case !ok:
		out.Note = "the call never reached the fault proxy"
	default:
		out.Fired, out.Note = rep.Fired, rep.Note
	}
	return out, nil
}

// throughProxy sends the call to replica 0 through its fault proxy p,
// asking for the proxy's fault kind, and waits for the proxy's report of
// it; false when none came. Its error ends the run.
func throughProxy(ctx context.Context, env CallEnv, p *httpproxy.Proxy, call model.Call, kind string) (CallOutcome, httpproxy.Report, bool, error) {
	token := env.Token()
	op, err := env.Send(ctx, call, 0, map[string]string{httpproxy.Header: kind + " " + token})
	out := CallOutcome{Ops: []model.Op{op}}
	if err != nil {
		return out, httpproxy.Report{}, false, err
	}
	rep, ok := p.Await(ctx, token)
	return out, rep, ok, ctx.Err()
}
