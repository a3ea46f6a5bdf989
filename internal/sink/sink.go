// Package sink runs the receivers of a contract's sinks (model.Sink): an
// HTTP server on 127.0.0.1 for the run that records every request the
// service sends it (a webhook, a notification) with its method, headers,
// body and time, and answers each of an action's attempts as the sink's
// faults say, so that the service's own delivery retries are exercised.
// It judges nothing: what it received goes into the history, and package
// checks judges it.
package sink

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// maxBody bounds what is kept of one delivery's body: a webhook is a few
// KiB of JSON.
const maxBody = 1 << 20

// maxKept bounds the deliveries kept and not yet taken: those of plans
// that ended before they arrived are never taken, and the oldest go first.
const maxKept = 1 << 14

// Receiver is one sink's HTTP server, running until Close.
type Receiver struct {
	spec   effect.Sink
	ln     net.Listener
	srv    *http.Server
	served chan error
	// stop ends slow answers when the receiver closes.
	stop   context.Context
	cancel context.CancelFunc

	log

	mu       sync.Mutex
	attempts map[string]int
}

// Start listens on the sink's address (a free loopback port when it
// names none) and serves until Close.
func Start(spec effect.Sink) (*Receiver, error) {
	addr := cmp.Or(spec.Addr, "127.0.0.1:0")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sink %s: listening on %s: %w (is another process on that port? leave addr out for a free one)", spec.Name, addr, err)
	}
	r := &Receiver{spec: spec, ln: ln, served: make(chan error, 1), attempts: map[string]int{}}
	r.stop, r.cancel = context.WithCancel(context.Background())
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { r.served <- r.srv.Serve(ln) }()
	return r, nil
}

// URL is what the service is handed as {sink.NAME.url}.
func (r *Receiver) URL() string { return "http://" + r.ln.Addr().String() }

// Close stops the server and waits for it; slow answers end at once.
func (r *Receiver) Close() error {
	r.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := r.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = r.srv.Close()
	}
	if served := <-r.served; !errors.Is(served, http.ErrServerClosed) && err == nil {
		err = served
	}
	return err
}

// ServeHTTP records one delivery and answers it as the fault of its
// action's attempt says.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
	if err != nil {
		return // the sender went away: nothing was delivered
	}
	d := model.Delivery{Sink: r.spec.Name, Method: req.Method, Header: masked(req.Header), Body: body}
	d.Fault = r.fault(body)
	switch d.Fault {
	case model.Sink500:
		http.Error(w, "idemstress sink: a planned failure of this delivery (faults: 500)", http.StatusInternalServerError)
	case model.SinkDrop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
			}
		}
	case model.SinkSlow:
		t := time.NewTimer(r.spec.SlowFor())
		defer t.Stop()
		select {
		case <-t.C:
			w.WriteHeader(http.StatusOK)
			d.Accepted = true
		case <-req.Context().Done(): // the sender gave up waiting
		case <-r.stop.Done():
		}
	default:
		w.WriteHeader(http.StatusOK)
		d.Accepted = true
	}
	r.add(at, d)
}

// secretHeaders are the headers whose values a history does not keep: it
// goes into reports and case files.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// masked is a copy of a delivery's headers with the credentials masked.
func masked(h http.Header) map[string][]string {
	out := h.Clone()
	for _, k := range secretHeaders {
		if _, ok := out[k]; ok {
			out[k] = []string{"(masked)"}
		}
	}
	return out
}

// fault is what the sink does to this attempt of the action the body
// names: the sink's faults in turn, then none. The action is told by the
// value the sink attributes deliveries by, which holds the namespace, so
// it needs no contract; a body that names none is accepted.
func (r *Receiver) fault(body []byte) model.SinkFault {
	if len(r.spec.Faults) == 0 {
		return model.SinkNone
	}
	ptr := cmp.Or(r.spec.Tag, r.spec.Key)
	v, ok := payloads.Pointer(body, ptr)
	if !ok {
		return model.SinkNone
	}
	if r.spec.Tenant != "" {
		t, _ := payloads.Pointer(body, r.spec.Tenant)
		v += "\x00" + t
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.attempts[v]
	r.attempts[v] = n + 1
	if len(r.attempts) > maxKept {
		clear(r.attempts) // the plans that sent them are long over
	}
	if n < len(r.spec.Faults) {
		return r.spec.Faults[n]
	}
	return model.SinkNone
}

// Read has nothing to do: an HTTP receiver records each delivery as it
// arrives. (A Redis sink reads what was published since it last read.)
func (r *Receiver) Read(context.Context) error { return nil }
