package interp

import (
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// How a call's commands at a dependency (its key store) are told apart
// at the RESP proxy in front of it (Executor.Deps): each call is tied
// there, for as long as it is sent, by the markers it is tied by at the
// PostgreSQL proxy (db.go).

// tieDeps ties call at every dependency's proxy until the returned func
// unties it; nil and a no-op without one.
func (x *execution) tieDeps(call model.Call) (map[string]*respproxy.Call, func()) {
	if len(x.Deps) == 0 {
		return nil, func() {}
	}
	markers := x.markers(call)
	ties := make(map[string]*respproxy.Call, len(x.Deps))
	for name, p := range x.Deps {
		ties[name] = p.Tie(string(x.ns)+" "+call.String(), markers...)
	}
	return ties, func() {
		for _, c := range ties {
			c.Untie()
		}
	}
}

// depTraces hands the points a call passed at each dependency to
// OnDepTrace.
func (x *execution) depTraces(call model.Call, ties map[string]*respproxy.Call) {
	if x.OnDepTrace == nil {
		return
	}
	for name, c := range ties {
		x.OnDepTrace(call, name, c.Trace())
	}
}

// DepCall is the faulted call's tie at the proxy in front of the
// dependency called name (nemesis.Sender).
func (s sender) DepCall(name string) *respproxy.Call { return s.x.depTied[name] }
