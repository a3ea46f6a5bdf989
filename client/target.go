// Package client is how a call reaches the system under test (Jepsen's
// client): over HTTP from a request template, with bursts released by
// last-byte synchronisation, or through a Go function for in-process use.
package client

import (
	"context"
	"errors"

	"github.com/idemstress/idemstress/internal/model"
)

// Request is one call as the target sees it: tenant and key already carry
// the plan's namespace.
type Request struct {
	Tenant string
	Key    string
	// NoKey sends the call without its idempotency key.
	NoKey bool
	// Tag identifies the call's action and payload variant for schemas that
	// keep no key column; it is substituted for {{tag}}.
	Tag  string
	Body []byte
	// Replica picks the replica the call goes to when the target spreads
	// calls over several (HTTP.WithHosts); it is taken modulo their number.
	Replica int
	// Noise is request noise to add (an HTTP target adds it to the URL and
	// headers); it must not change the call's identity.
	Noise model.Noise
	// Extra are headers idemstress adds for its own machinery (the fault
	// proxy's selector), never the contract's; an HTTP target sends them
	// as they are.
	Extra map[string]string
}

// Response is what the target answered.
type Response struct {
	Status int
	// ID is the resource ID found in the answer, "" when there is none.
	ID string
	// Body is the start of the answer's body, kept for reports.
	Body []byte
}

// Target sends calls. Do returns an error only when no answer arrived.
type Target interface {
	Do(ctx context.Context, req Request) (Response, error)
}

// Func adapts a Go function to Target, for targets that run in-process.
type Func func(ctx context.Context, req Request) (Response, error)

// Do calls f.
func (f Func) Do(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// ErrUnreachable marks an error that says the target cannot be talked to
// at all (connection refused, no such host or route, TLS against plain HTTP
// or an untrusted certificate): an infrastructure failure, not an unknown
// outcome of a call.
var ErrUnreachable = errors.New("target unreachable")
