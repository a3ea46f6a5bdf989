package interp

import (
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// How a call's database work is told apart at the PostgreSQL proxy
// (Executor.DB): each call is tied, for as long as it is sent, by the
// bytes of its own that the service writes or looks up.

// markers are the byte strings that tie a call's database sessions to it
// at the proxy: its key as the service stores it (a template's
// "order-{{key}}" rendered) and as it is sent, and its tag. Its tenant
// only when it has neither, since the tenant is shared by every action of
// it and would tie another action's session to this call.
func (x *execution) markers(call model.Call) [][]byte {
	c := x.Contract.Breaking(call.Broken)
	var ms [][]byte
	if !call.NoKey {
		ms = append(ms, []byte(identifiers.StoredKey(c, x.ns, call.Key)), []byte(identifiers.SentKey(c, x.ns, call.Key)))
	}
	if tag := identifiers.Tag(x.ns, c, call); tag != "" {
		ms = append(ms, []byte(tag))
	}
	if len(ms) == 0 {
		ms = append(ms, []byte(identifiers.SentTenant(c, x.ns, call.Tenant)))
	}
	return ms
}

// tie ties call at the proxy until the returned func unties it; nil and
// a no-op without a proxy.
func (x *execution) tie(call model.Call) (*pgproxy.Call, func()) {
	if x.DB == nil {
		return nil, func() {}
	}
	c := x.DB.Tie(string(x.ns)+" "+call.String(), x.markers(call)...)
	return c, c.Untie
}
