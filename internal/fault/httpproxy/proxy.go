// Package httpproxy is the fault proxy in front of a replica: a loopback
// HTTP/1.1 proxy that loses, drops, doubles or delays the one exchange
// whose request asks for it by Header, and reports whether that fault
// fired. It knows nothing of plans or of the nemesis: package fault's
// call faults send through it, and the session (package stress) starts
// one per replica.
package httpproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/idemstress/idemstress/internal/httpbound"
)

// Header selects the fault a proxied call gets: "<kind> <token>", kind one
// of the Proxy kinds, token what Proxy.Report is asked with. The proxy
// removes it before the target sees the request.
const Header = "X-Idemstress-Fault"

// The kinds of fault a Proxy does to one call.
const (
	// LoseReply forwards the request, reads the target's complete answer,
	// then closes the client's connection without it.
	LoseReply = "lose-reply"
	// DropRequest closes the client's connection before anything is
	// forwarded.
	DropRequest = "drop-request"
	// DoubleDelivery forwards the request twice, one after the other, and
	// gives the client the first answer.
	DoubleDelivery = "double-delivery"
	// Delay reads the target's answer and holds it until the client has
	// closed its connection (it gave up), or Proxy.Hold passes.
	Delay = "delay"
)

// Proxy is a loopback HTTP/1.1 proxy in front of one replica. Calls without
// the Header pass through unchanged; a call with it gets that fault, and
// the proxy records whether the fault fired. Each client connection
// carries one request (the answer says Connection: close), so a fault
// never reaches another call.
type Proxy struct {
	// Hold bounds how long a delayed answer is held for a client that
	// does not give up; 0 is defaultHold.
	Hold time.Duration

	ln     net.Listener
	target string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	reports map[string]Report
	// failed is the proxy's own first failure since Failure last took it:
	// a target it could not connect to.
	failed error
}

// Report says what a fault did to one call.
type Report struct {
	Fired bool
	// Note says why it did not fire.
	Note string
	// Status is the target's answer's status, for a lost reply: what the
	// client never heard.
	Status int
}

// defaultHold is how long a delayed answer waits for its client to give up.
const defaultHold = time.Minute

// exchangeTimeout bounds reading a request from the client and one
// exchange with the target, so that no connection is held forever.
const exchangeTimeout = 2 * time.Minute

// Start listens on a free 127.0.0.1 port and forwards to target
// ("host:port") until Close.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault: proxy for %s: %w", target, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{ln: ln, target: target, ctx: ctx, cancel: cancel, reports: map[string]Report{}}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops accepting, ends every exchange under way and waits for them.
func (p *Proxy) Close() error {
	p.cancel()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

// Report returns, and forgets, what the fault of the call with token did;
// false when no call with that token came through.
func (p *Proxy) Report(token string) (Report, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.reports[token]
	delete(p.reports, token)
	return r, ok
}

// reportWait bounds the wait for the proxy's report of a call's fault,
// which it files once the exchange is over, maybe just after the client
// saw its end.
const reportWait = 5 * time.Second

// Await waits, bounded by reportWait, for the report of the call with
// token; false when none came, or the context ended first.
func (p *Proxy) Await(ctx context.Context, token string) (Report, bool) {
	deadline := time.Now().Add(reportWait)
	for {
		if rep, ok := p.Report(token); ok {
			return rep, true
		}
		if time.Now().After(deadline) {
			return Report{}, false
		}
		select {
		case <-ctx.Done():
			return Report{}, false
		case <-time.After(time.Millisecond):
		}
	}
}

func (p *Proxy) accept() {
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Go(func() { p.serve(conn) })
	}
}

// serve handles the one request of a client connection.
func (p *Proxy) serve(client net.Conn) {
	defer client.Close()
	stop := context.AfterFunc(p.ctx, func() { client.Close() })
	defer stop()
	_ = client.SetReadDeadline(time.Now().Add(exchangeTimeout))
	req, err := http.ReadRequest(bufio.NewReader(client))
	if err != nil {
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	kind, token, _ := strings.Cut(req.Header.Get(Header), " ")
	req.Header.Del(Header)
	rep := p.apply(client, kind, req, body)
	if token != "" {
		p.mu.Lock()
		p.reports[token] = rep
		p.mu.Unlock()
	}
}

// apply does the fault of kind to one exchange and says whether it fired.
func (p *Proxy) apply(client net.Conn, kind string, req *http.Request, body []byte) Report {
	switch kind {
	case DropRequest:
		return Report{Fired: true}
	case "", LoseReply, DoubleDelivery, Delay:
	default:
		answer(client, badGateway("unknown fault "+kind))
		return Report{Note: "the proxy knows no fault " + kind}
	}
	resp, err := p.forward(req, body)
	if err != nil {
		// The client sees what it would see without the proxy: a
		// connection that ended without an answer.
		return Report{Note: "the target did not answer"}
	}
	switch kind {
	case LoseReply:
		return Report{Fired: true, Status: resp.StatusCode}
	case DoubleDelivery:
		if _, err := p.forward(req, body); err != nil {
			answer(client, resp)
			return Report{Note: "the target did not answer the second delivery"}
		}
	case Delay:
		if gaveUp(client, p.hold()) {
			return Report{Fired: true}
		}
		answer(client, resp)
		return Report{Note: "the client did not give up while the answer was held"}
	}
	answer(client, resp)
	return Report{Fired: kind != ""}
}

func (p *Proxy) hold() time.Duration {
	if p.Hold > 0 {
		return p.Hold
	}
	return defaultHold
}

// maxBody bounds the body of an answer the proxy holds: the client reads
// 64 KiB of it at most, and a service that answers without end must not
// make the proxy hold it all.
const maxBody = 1 << 20

// forward sends the request to the target on a connection of its own and
// reads its complete answer (its headers within httpbound.MaxHeader, its
// body cut at maxBody).
func (p *Proxy) forward(req *http.Request, body []byte) (*http.Response, error) {
	up, err := p.dial()
	if err != nil {
		p.mu.Lock()
		if p.failed == nil {
			p.failed = fmt.Errorf("fault proxy %s: connecting to the target %s: %w", p.Addr(), p.target, err)
		}
		p.mu.Unlock()
		return nil, err
	}
	defer up.Close()
	stop := context.AfterFunc(p.ctx, func() { up.Close() })
	defer stop()
	_ = up.SetDeadline(time.Now().Add(exchangeTimeout))
	out := req.Clone(p.ctx)
	out.Body, out.ContentLength, out.TransferEncoding = io.NopCloser(bytes.NewReader(body)), int64(len(body)), nil
	out.Close = true
	if err := out.Write(up); err != nil {
		return nil, err
	}
	resp, err := httpbound.ReadResponse(up, out)
	if err != nil {
		return nil, err
	}
	got, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body, resp.ContentLength, resp.TransferEncoding = io.NopCloser(bytes.NewReader(got)), int64(len(got)), nil
	return resp, nil
}

// dialPatience bounds how long the proxy waits for a target that refuses
// connections: a replica still starting up after a restart. Nothing of the
// request was sent, so waiting is safe.
const dialPatience = 3 * time.Second

// dial connects to the target, retrying while it refuses connections for
// up to dialPatience, so that a request is forwarded only to a replica
// that listens.
func (p *Proxy) dial() (net.Conn, error) {
	d := net.Dialer{}
	deadline := time.Now().Add(dialPatience)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		up, err := d.DialContext(p.ctx, "tcp", p.target)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || time.Now().Add(wait).After(deadline) {
			return up, err
		}
		select {
		case <-p.ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// Failure returns the proxy's own first failure since it was last called
// (a target it could not connect to), and forgets it; nil when there was
// none. A call that failed so got no answer through no fault of the
// target's: the run's infrastructure failed, not the service.
func (p *Proxy) Failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.failed
	p.failed = nil
	return err
}

// answer writes resp to the client and ends the connection.
func answer(client net.Conn, resp *http.Response) {
	resp.Close = true
	_ = client.SetWriteDeadline(time.Now().Add(exchangeTimeout))
	_ = resp.Write(client)
}

func badGateway(why string) *http.Response {
	return &http.Response{StatusCode: http.StatusBadGateway, ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{},
		Body: io.NopCloser(strings.NewReader("idemstress fault proxy: " + why)), ContentLength: -1}
}

// gaveUp waits up to d for the client to close its connection, which it
// does when its timeout ends the call.
func gaveUp(client net.Conn, d time.Duration) bool {
	_ = client.SetReadDeadline(time.Now().Add(d))
	_, err := client.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}
