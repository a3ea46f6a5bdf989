package client

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// burstResult is one call of a burst: what came back and when.
type burstResult struct {
	Response
	// Err is set when no answer arrived (ErrUnreachable when the target is
	// not there at all).
	Err error
	// Sent is when the call was released; Done when its answer was read.
	Sent, Done time.Time
}

// Burster is a target that releases the calls of a burst itself, all at
// the same instant. answered, when not nil, counts the answers as they
// arrive (the db-stall nemesis watches it).
type Burster interface {
	Burst(ctx context.Context, reqs []Request, answered *atomic.Int64) []burstResult
}

// WithSync returns a copy of the target whose bursts are released in the
// given mode (the default is LastByte).
func (h *HTTP) WithSync(mode SyncMode) *HTTP {
	c := *h
	c.sync = mode
	return &c
}

// Burst sends every call on a connection of its own and releases them
// together (see Release), call i to replica req.Replica. The connections
// are dialled ahead, or kept from an earlier burst while they stay open
// (see warm); CloseIdleConnections closes the kept ones.
func (h *HTTP) Burst(ctx context.Context, reqs []Request, answered *atomic.Int64) []burstResult {
	results := make([]burstResult, len(reqs))
	hreqs := make([]*http.Request, 0, len(reqs))
	index := make([]int, 0, len(reqs))
	for i, req := range reqs {
		hr, err := h.NewRequest(ctx, req)
		if err != nil {
			results[i].Err = err
			continue
		}
		hreqs = append(hreqs, hr)
		index = append(index, i)
	}
	opts := ReleaseOptions{Mode: h.sync, Timeout: h.spec.Timeout, Answered: answered, keep: h.keep}
	if t, ok := h.client.Transport.(*http.Transport); ok {
		opts.TLS = t.TLSClientConfig // the trust the target's own client has
	}
	exchanges := Release(ctx, hreqs, opts)
	for j, ex := range exchanges {
		r := &results[index[j]]
		r.Sent, r.Done = ex.Sent, ex.Done
		if ex.Err != nil {
			r.Err = classify(ex.Err)
			continue
		}
		r.Response = h.ParseResponse(ex.Resp, ex.Body)
	}
	return results
}
