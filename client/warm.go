package client

import (
	"context"
	"io"
	"net"
	"sync"
	"time"

	"github.com/idemstress/idemstress/internal/httpbound"
)

// warm keeps the connections of past bursts open for the next ones, by
// host:port, so that a burst call does not pay a dial (and the server an
// accept) each time: the profiled biggest remaining cost of a plan.
//
// A kept connection the server has closed must never read as the service's
// "no answer" (an unknown outcome, maybe IDEM-014). So a connection is kept
// only after a whole answer that did not ask to close it, only for
// warmIdle (well below any keep-alive timeout a server sets: Node's is 5s),
// and get drops one on which the server already sent its end. What is left
// is a server that closes the connection in the microseconds between that
// check and the request: the burst sends such a request again on a fresh
// connection (see burst.retryFresh), but only when the connection ended
// at once (burst.idleClosed): a server closing an idle connection never
// read the request, while one that read it and then dropped it may have
// acted on it, and that call is the service's "no answer".
type warm struct {
	mu    sync.Mutex
	conns map[string][]warmConn
}

type warmConn struct {
	c     net.Conn
	since time.Time
}

const (
	// warmIdle is how long a kept connection may wait for the next burst.
	warmIdle = time.Second
	// warmPerHost bounds the connections kept for one host:port: a burst
	// has at most 64 calls.
	warmPerHost = 64
)

// get returns a kept connection to addr that is still open, or nil.
func (w *warm) get(addr string) net.Conn {
	if w == nil {
		return nil
	}
	for {
		w.mu.Lock()
		list := w.conns[addr]
		if len(list) == 0 {
			w.mu.Unlock()
			return nil
		}
		wc := list[len(list)-1]
		w.conns[addr] = list[:len(list)-1]
		w.mu.Unlock()
		if time.Since(wc.since) < warmIdle && open(wc.c) {
			return wc.c
		}
		_ = wc.c.Close()
	}
}

// put keeps c for the next burst to addr.
func (w *warm) put(addr string, c net.Conn) {
	_ = c.SetDeadline(time.Time{})
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conns == nil {
		w.conns = map[string][]warmConn{}
	}
	if len(w.conns[addr]) >= warmPerHost {
		_ = c.Close()
		return
	}
	w.conns[addr] = append(w.conns[addr], warmConn{c, time.Now()})
}

// closeAll closes every kept connection: the replicas behind them were
// restarted, or the target is done.
func (w *warm) closeAll() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, list := range w.conns {
		for _, wc := range list {
			_ = wc.c.Close()
		}
	}
	w.conns = nil
}

// retryFresh sends request i again, whole, on a new connection, after the
// kept one it went over turned out closed by the server. Its Sent is the
// time of this sending; the connection is closed once read (it is not in
// b.conns, which the release's other goroutines read).
func (b *burst) retryFresh(i int) {
	// Not before the release: the request goes out with the others, or
	// just after them, and its Sent is written after the sender's.
	select {
	case <-b.released:
	case <-b.ctx.Done():
		b.fail(i, "read answer", b.ctx.Err())
		return
	}
	d := net.Dialer{Timeout: time.Until(b.deadline)}
	c, err := d.DialContext(b.ctx, "tcp", b.addrs[i])
	if err != nil {
		b.fail(i, "dial again after a kept connection closed", err)
		return
	}
	defer c.Close()
	stop := context.AfterFunc(b.ctx, func() { _ = c.SetDeadline(aLongTimeAgo) })
	defer stop()
	_ = c.SetDeadline(b.deadline)
	b.ex[i].Sent = time.Now()
	if _, err := c.Write(b.wire[i]); err != nil {
		b.fail(i, "send again after a kept connection closed", err)
		return
	}
	resp, err := httpbound.ReadResponse(c, b.reqs[i])
	b.answer(i, resp, err, false)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
