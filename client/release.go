package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/idemstress/idemstress/internal/httpbound"
)

// SyncMode says how the requests of a burst are released.
type SyncMode string

const (
	// Naive starts one goroutine per request behind a start barrier; once
	// the barrier opens, each writes its whole request on its own
	// connection, dialled beforehand like LastByte's. How close together the
	// requests arrive is left to the Go scheduler: it is the baseline that
	// LastByte is measured against.
	Naive SyncMode = "naive"
	// LastByte writes every request except the final byte of its header
	// section, then sends each held-back byte, followed by the request's
	// body, back to back from one goroutine locked to its OS thread. A
	// server enters the handler once the headers are parsed, so holding
	// back the last header byte synchronises handler entry itself. The
	// default.
	LastByte SyncMode = "lastbyte"
)

// ParseSyncMode reads a sync mode as written on a command line or in a
// config; the empty string is the default, LastByte.
func ParseSyncMode(s string) (SyncMode, error) {
	switch m := SyncMode(s); m {
	case "":
		return LastByte, nil
	case Naive, LastByte:
		return m, nil
	}
	return "", fmt.Errorf("client: sync mode %q: want %q (the default) or %q", s, LastByte, Naive)
}

// Exchange is one request of a burst and what came back.
type Exchange struct {
	// Resp is the answer; nil when Err != nil. Its body has been read into
	// Body and closed; Resp.Body is http.NoBody.
	Resp *http.Response
	// Body is the answer's body, cut at 64 KiB.
	Body []byte
	Err  error
	// Sent is when the request's final byte left, read just before it was
	// written: the request cannot have taken effect earlier. Zero if the
	// request was never released.
	Sent time.Time
	// Done is when the answer was read, or the exchange failed.
	Done time.Time
}

// ReleaseOptions configures Release.
type ReleaseOptions struct {
	// Mode is how the requests are released; empty means LastByte.
	Mode SyncMode
	// Timeout bounds each exchange, dial included, from the moment the
	// burst is ready to be released to the answer read; default 10s.
	Timeout time.Duration
	// Answered, when set, is incremented as each answer is read (the
	// db-stall nemesis watches it). Failed exchanges are not counted: a
	// request whose client gave up may still be on its way to the database,
	// or blocked in it, and a stall must not take it for finished.
	Answered *atomic.Int64
	// TLS configures the connections of https:// requests (nil: the
	// system's roots); the handshake is part of dialling, before release.
	TLS *tls.Config

	// keep, when set, holds connections from one burst to the next: each
	// request goes over a kept connection when there is one, without
	// "Connection: close", and each connection that ends with a whole
	// answer is kept again (see warm). Nil: a new connection per request.
	keep *warm

	// beforeRelease, when set, runs once every request is on the wire up
	// to its held-back part and before any of them is released. Tests use
	// it to prove that no handler is entered early.
	beforeRelease func()
}

const (
	// settleFor is the pause between getting ready and releasing; see settle.
	settleFor = 300 * time.Microsecond
)

// aLongTimeAgo is a deadline in the past: setting it makes every blocked
// read and write on a connection return at once.
var aLongTimeAgo = time.Unix(1, 0)

// Release releases reqs at the same instant and returns their exchanges in
// the order of reqs. Every request goes over a new TCP connection of its
// own to req.URL.Host, with "Connection: close", dialled before the
// release (a target's bursts keep theirs open for the next burst instead,
// see warm); only http:// and https:// URLs are supported. Release consumes the requests'
// bodies. A request that cannot be sent or answered gets an Err; the others
// go on. When ctx ends, every exchange still open fails at once. All
// connections are closed and all goroutines ended when Release returns.
func Release(ctx context.Context, reqs []*http.Request, opts ReleaseOptions) []Exchange {
	if opts.Mode == "" {
		opts.Mode = LastByte
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	b := newBurst(ctx, reqs, opts)
	if opts.Mode != Naive && opts.Mode != LastByte {
		for i := range reqs {
			b.fail(i, "prepare", fmt.Errorf("unknown sync mode %q (want %q or %q)", opts.Mode, LastByte, Naive))
		}
		return b.ex
	}
	for i := range reqs {
		b.serialise(i)
	}
	b.dial()
	defer b.closeConns()
	defer b.watchCancel()() // a cancelled burst returns at once
	b.deadline = time.Now().Add(opts.Timeout)
	for _, c := range b.conns {
		if c != nil {
			_ = c.SetDeadline(b.deadline)
		}
	}
	if opts.Mode == Naive {
		b.releaseNaive()
	} else {
		b.releaseLastByte()
	}
	return b.ex
}

// newBurst is the burst of reqs, each with its slot in every per-request
// slice.
func newBurst(ctx context.Context, reqs []*http.Request, opts ReleaseOptions) *burst {
	return &burst{
		ctx:   ctx,
		opts:  opts,
		orig:  reqs,
		reqs:  make([]*http.Request, len(reqs)),
		wire:  make([][]byte, len(reqs)),
		hold:  make([]int, len(reqs)),
		addrs: make([]string, len(reqs)),
		conns: make([]net.Conn, len(reqs)),
		ex:    make([]Exchange, len(reqs)),
		// reused and keepable are written by request i's goroutines only.
		reused:   make([]bool, len(reqs)),
		keepable: make([]bool, len(reqs)),
		released: make(chan struct{}),
	}
}

// watchCancel sets a past deadline on every connection when the burst's
// context ends: that is what makes a cancelled burst return at once,
// whatever each goroutine is blocked in. The function it returns stops
// the watch and waits for it to end.
func (b *burst) watchCancel() (stop func()) {
	done := make(chan struct{})
	var watch errgroup.Group
	watch.Go(func() error {
		select {
		case <-b.ctx.Done():
			for _, c := range b.conns {
				if c != nil {
					_ = c.SetDeadline(aLongTimeAgo)
				}
			}
		case <-done:
		}
		return nil
	})
	return func() {
		close(done)
		_ = watch.Wait()
	}
}

// burst is the state of one Release call. Each exchange's fields are written
// by one goroutine at a time: Sent by the sender, the rest by its reader.
type burst struct {
	ctx   context.Context
	opts  ReleaseOptions
	orig  []*http.Request
	reqs  []*http.Request // the clones that go on the wire
	wire  [][]byte        // each request as written on the wire
	hold  []int           // where in wire the held-back part starts
	addrs []string        // host:port of each request
	conns []net.Conn      // nil where the exchange failed before release
	ex    []Exchange
	// reused says a request went over a kept connection; keepable that
	// its connection ended with a whole answer and may be kept again.
	reused, keepable []bool
	// released closes once every request's final part has been sent.
	released chan struct{}
	// deadline ends every exchange (ReleaseOptions.Timeout).
	deadline time.Time
}

// answerGrace is how long a request whose sending failed may still be
// answered: a server may answer (413, say) before it has read the whole
// body and close the connection, and that answer is the call's outcome.
const answerGrace = 2 * time.Second

// sendFailed gives the reader of a request whose sending failed a short
// while to read an answer the server sent anyway.
func (b *burst) sendFailed(c net.Conn) {
	grace := time.Now().Add(answerGrace)
	if b.deadline.Before(grace) {
		grace = b.deadline
	}
	_ = c.SetReadDeadline(grace)
	if b.ctx.Err() != nil {
		_ = c.SetDeadline(aLongTimeAgo) // the watcher's past deadline must stay
	}
}

// serialise writes request i to bytes and finds the final byte of its
// header section: the last "\n" of the first "\r\n\r\n" (header values
// cannot hold CR or LF, net/http writes them as spaces).
func (b *burst) serialise(i int) {
	r := b.orig[i]
	if r == nil || r.URL == nil {
		b.fail(i, "prepare", errors.New("nil request or URL"))
		return
	}
	if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
		b.fail(i, "prepare", fmt.Errorf("scheme %q: only http:// and https:// can be burst (the requests are written as raw HTTP/1.1)", r.URL.Scheme))
		return
	}
	c := r.Clone(b.ctx)
	// Without a keep, one connection per request: nothing to reuse, and the
	// server ends it after answering.
	c.Close = b.opts.keep == nil
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		b.fail(i, "serialise", err)
		return
	}
	end := bytes.Index(buf.Bytes(), []byte("\r\n\r\n"))
	if end < 0 {
		b.fail(i, "serialise", errors.New("no end of header section in the serialised request"))
		return
	}
	b.reqs[i], b.wire[i], b.hold[i] = c, buf.Bytes(), end+3
}

// dial connects every request that is still on, concurrently.
func (b *burst) dial() {
	d := net.Dialer{Timeout: b.opts.Timeout}
	var g errgroup.Group
	for i, r := range b.reqs {
		if r == nil {
			continue
		}
		port := r.URL.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[r.URL.Scheme]
		}
		b.addrs[i] = net.JoinHostPort(r.URL.Hostname(), port)
		// TLS connections are not kept: probing a tls.Conn with a past
		// deadline is not a read the TLS state survives for sure.
		if r.URL.Scheme == "http" {
			if c := b.opts.keep.get(b.addrs[i]); c != nil {
				b.conns[i], b.reused[i] = c, true
				continue
			}
		}
		g.Go(func() error {
			c, err := d.DialContext(b.ctx, "tcp", b.addrs[i])
			if err != nil {
				b.fail(i, "dial", err)
				return nil
			}
			if r.URL.Scheme == "https" {
				if c, err = b.handshake(c, r.URL.Hostname()); err != nil {
					b.fail(i, "dial", err)
					return nil
				}
			}
			b.conns[i] = c
			return nil
		})
	}
	_ = g.Wait()
}

// handshake puts TLS over a dialled connection, speaking HTTP/1.1 only:
// the held-back byte goes out in a TLS record of its own, which the server
// cannot decrypt before it arrives, so last-byte release holds over TLS.
func (b *burst) handshake(c net.Conn, host string) (net.Conn, error) {
	cfg := b.opts.TLS.Clone()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	cfg.NextProtos = []string{"http/1.1"}
	tc := tls.Client(c, cfg)
	ctx, cancel := context.WithTimeout(b.ctx, b.opts.Timeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return tc, nil
}

// settle pauses between getting ready and releasing, so that the server
// has accepted every connection and read what it was sent, and our own
// goroutines are parked, before the release: otherwise that work competes
// with it. It yields rather than sleeps: a sleeping process lets its CPU go
// idle, and waking an idle (virtual) CPU is what the release would then pay
// for. On this project's 2-core VM, spinning 300µs gave a 16-call burst a
// 20% tighter median handler-entry spread than no pause, and a 1ms sleep a
// wider one.
func settle() {
	for start := time.Now(); time.Since(start) < settleFor; {
		runtime.Gosched()
	}
}

// closeConns closes every connection, or keeps it for the next burst
// when it ended with a whole answer that did not ask to close it.
func (b *burst) closeConns() {
	for i, c := range b.conns {
		switch {
		case c == nil:
		case b.opts.keep != nil && b.keepable[i] && b.ctx.Err() == nil && b.reqs[i].URL.Scheme == "http":
			b.opts.keep.put(b.addrs[i], c)
		default:
			_ = c.Close()
		}
	}
}

// releaseNaive opens a start barrier in front of one goroutine per request.
func (b *burst) releaseNaive() {
	start := make(chan struct{})
	var g errgroup.Group
	for i, c := range b.conns {
		if c == nil {
			continue
		}
		g.Go(func() error {
			<-start
			b.ex[i].Sent = time.Now()
			_, err := c.Write(b.wire[i])
			if err != nil {
				b.sendFailed(c)
			}
			b.read(i)
			if err != nil {
				b.keepable[i] = false
			}
			if err != nil && b.ex[i].Resp == nil {
				b.fail(i, "send", err)
			}
			return nil
		})
	}
	settle()
	if b.opts.beforeRelease != nil {
		b.opts.beforeRelease()
	}
	close(start)
	close(b.released)
	_ = g.Wait()
}

// releaseLastByte starts the readers, writes every request but its
// held-back part, then sends all held-back parts from this goroutine, locked
// to its thread so that the server goroutines it wakes do not push it off
// its CPU half-way through the loop.
func (b *burst) releaseLastByte() {
	var g errgroup.Group
	live := make([]bool, len(b.conns))
	sendErr := make([]error, len(b.conns))
	for i, c := range b.conns {
		if c == nil {
			continue
		}
		live[i] = true
		g.Go(func() error { b.read(i); return nil })
	}
	for i, c := range b.conns {
		if !live[i] {
			continue
		}
		if _, err := c.Write(b.wire[i][:b.hold[i]]); err != nil {
			live[i] = false
			sendErr[i] = err
			b.sendFailed(c)
		}
	}
	settle()
	if b.opts.beforeRelease != nil {
		b.opts.beforeRelease()
	}
	runtime.LockOSThread()
	for i, c := range b.conns {
		if !live[i] {
			continue
		}
		b.ex[i].Sent = time.Now()
		if _, err := c.Write(b.wire[i][b.hold[i]:]); err != nil {
			sendErr[i] = err
			b.sendFailed(c) // its reader would otherwise wait for the whole timeout
		}
	}
	runtime.UnlockOSThread()
	close(b.released)
	_ = g.Wait()
	for i, err := range sendErr {
		if err != nil {
			b.keepable[i] = false
		}
		if err != nil && b.ex[i].Resp == nil {
			b.fail(i, "send", err)
		}
	}
}

// read reads the answer to request i. On a kept connection that ends
// before the first byte of an answer, and at once (see idleClosed), the
// server closed it while idle and never read the request: it is sent
// again on a fresh connection.
func (b *burst) read(i int) {
	got := &countingReader{r: b.conns[i]}
	resp, err := httpbound.ReadResponse(got, b.reqs[i])
	ended := time.Now()
	if err != nil && b.reused[i] && got.n == 0 && b.ctx.Err() == nil && !errors.Is(err, os.ErrDeadlineExceeded) && b.idleClosed(i, ended) {
		b.retryFresh(i)
		return
	}
	b.answer(i, resp, err, b.conns[i] != nil)
}

// idleCloseWithin is how soon after its final byte left a request's kept
// connection must end, answerless, to be taken for one the server closed
// while idle. A server closing an idle connection does so before it reads
// anything, and the kernel's reset comes back within microseconds on
// loopback; a server that read the request and then dropped it (a handler
// that panicked, maybe after it committed) took longer, and that request
// must not be sent again: it is the service's "no answer".
const idleCloseWithin = 5 * time.Millisecond

// idleClosed reports whether request i's kept connection, which ended
// answerless at ended, ended too soon after the request was sent for the
// server to have read it (or before it was sent at all). It waits for the
// release, after which request i's Sent is written.
func (b *burst) idleClosed(i int, ended time.Time) bool {
	select {
	case <-b.released:
	case <-b.ctx.Done():
		return false
	}
	return ended.Sub(b.ex[i].Sent) < idleCloseWithin
}

// answer records what request i got back; keep says its connection may
// be kept after a whole answer.
func (b *burst) answer(i int, resp *http.Response, err error, keep bool) {
	if err != nil {
		b.fail(i, "read answer", err)
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	_ = resp.Body.Close()
	resp.Body = http.NoBody
	if err != nil {
		b.fail(i, "read answer body", err)
		return
	}
	b.ex[i].Resp, b.ex[i].Body, b.ex[i].Done = resp, body, time.Now()
	// A body cut at maxBody leaves the rest of it on the connection.
	b.keepable[i] = keep && !resp.Close && len(body) < maxBody
	if b.opts.Answered != nil {
		b.opts.Answered.Add(1)
	}
}

func (b *burst) fail(i int, stage string, err error) {
	b.ex[i].Err = b.wrap(i, stage, err)
	b.ex[i].Done = time.Now()
}

// wrap names the request and the stage, and says why a deadline hit.
func (b *burst) wrap(i int, stage string, err error) error {
	name := fmt.Sprintf("client: burst request %d", i+1)
	if r := b.orig[i]; r != nil && r.URL != nil {
		name += fmt.Sprintf(" (%s %s)", r.Method, r.URL.Redacted())
	}
	switch {
	case b.ctx.Err() != nil:
		return fmt.Errorf("%s: %s: burst cancelled: %w", name, stage, context.Cause(b.ctx))
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%s: %s: no answer within %s (ReleaseOptions.Timeout): %w", name, stage, b.opts.Timeout, err)
	}
	return fmt.Errorf("%s: %s: %w", name, stage, err)
}
