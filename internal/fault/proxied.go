package fault

import (
	"context"
	"time"

	"github.com/idemstress/idemstress/internal/model"
)

// The faults the fault proxy does to a call on the wire (lose-reply,
// drop-request, double-delivery, delay): the call goes through the proxy
// in front of replica 0, asking for its fault by Header, and the proxy
// says whether it fired.

// reportWait bounds the wait for the proxy's report of a call's fault,
// which it files once the exchange is over, maybe just after the client
// saw its end.
const reportWait = 5 * time.Second

func proxied(ctx context.Context, env CallEnv, call model.Call) (CallOutcome, error) {
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
func throughProxy(ctx context.Context, env CallEnv, p *Proxy, call model.Call, kind string) (CallOutcome, ProxyReport, bool, error) {
	token := env.Token()
	op, err := env.Send(ctx, call, 0, map[string]string{Header: kind + " " + token})
	out := CallOutcome{Ops: []model.Op{op}}
	if err != nil {
		return out, ProxyReport{}, false, err
	}
	rep, ok := p.await(ctx, token)
	return out, rep, ok, ctx.Err()
}

// await waits, bounded by reportWait, for the report of the call with
// token; false when none came, or the context ended first.
func (p *Proxy) await(ctx context.Context, token string) (ProxyReport, bool) {
	deadline := time.Now().Add(reportWait)
	for {
		if rep, ok := p.Report(token); ok {
			return rep, true
		}
		if time.Now().After(deadline) {
			return ProxyReport{}, false
		}
		select {
		case <-ctx.Done():
			return ProxyReport{}, false
		case <-time.After(time.Millisecond):
		}
	}
}
