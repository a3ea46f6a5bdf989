package client

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener counts the accepted connections that have read at
// least one byte: a request on the wire, complete or not.
type countingListener struct {
	net.Listener
	reading atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

type countingConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.once.Do(func() { c.l.reading.Add(1) })
	}
	return n, err
}

// TestLastByteHoldsHandlers: once every request of a last-byte burst is on
// the wire but its final header byte, the server has read from every
// connection and yet entered no handler; every handler is entered after the
// release. A burst that wrote whole requests early, or held back a body
// byte instead of a header byte, enters handlers during the hold; one that
// wrote nothing early leaves the server nothing to read.
func TestLastByteHoldsHandlers(t *testing.T) {
	const n = 16
	var mu sync.Mutex
	var entered []time.Time
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		mu.Lock()
		entered = append(entered, now)
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	l := &countingListener{Listener: srv.Listener}
	srv.Listener = l
	srv.Start()
	defer srv.Close()

	reqs := make([]*http.Request, n)
	for i := range reqs {
		// A body, so that holding back its last byte instead would show.
		r, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = r
	}
	var released time.Time
	hold := func() {
		deadline := time.Now().Add(5 * time.Second)
		for l.reading.Load() < n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if got := l.reading.Load(); got != n {
			t.Errorf("before release the server read from %d connections, want %d", got, n)
		}
		// Give the server time to enter a handler, were it able to.
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		if len(entered) > 0 {
			t.Errorf("%d handlers entered before the release, want none", len(entered))
		}
		mu.Unlock()
		released = time.Now()
	}
	ex := Release(t.Context(), reqs, ReleaseOptions{Mode: LastByte, beforeRelease: hold})
	for i, e := range ex {
		if e.Err != nil || e.Resp.StatusCode != http.StatusCreated {
			t.Fatalf("exchange %d: %v", i, e.Err)
		}
		if e.Sent.Before(released) {
			t.Errorf("exchange %d: final byte sent at %v, before the release at %v", i, e.Sent, released)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(entered) != n {
		t.Fatalf("%d handlers entered, want %d", len(entered), n)
	}
	for i, e := range entered {
		if e.Before(released) {
			t.Errorf("handler %d entered %v before the release", i, released.Sub(e))
		}
	}
}

// TestHeldByteIsLastHeaderByte pins where the split falls, for a request
// with a body and one sent chunked.
func TestHeldByteIsLastHeaderByte(t *testing.T) {
	sized, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/x", strings.NewReader("abc"))
	chunked, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/x", struct{ *strings.Reader }{strings.NewReader("abc")})
	for name, r := range map[string]*http.Request{"sized": sized, "chunked": chunked} {
		b := &burst{ctx: t.Context(), orig: []*http.Request{r}, reqs: make([]*http.Request, 1), wire: make([][]byte, 1), hold: make([]int, 1), ex: make([]Exchange, 1)}
		b.serialise(0)
		if b.ex[0].Err != nil {
			t.Fatal(b.ex[0].Err)
		}
		head, tail := string(b.wire[0][:b.hold[0]]), string(b.wire[0][b.hold[0]:])
		if !strings.HasSuffix(head, "\r\n\r") || strings.Count(head, "\r\n\r\n") != 0 || !strings.HasPrefix(tail, "\n") {
			t.Errorf("%s: split %q | %q, want the head to end just before the last \\n of the header section", name, head, tail)
		}
		if !strings.Contains(head, "Connection: close\r\n") {
			t.Errorf("%s: head %q lacks Connection: close", name, head)
		}
	}
}
