package httpproxy_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/fault/httpproxy"
)

// TestProxyFaults sends one call through the proxy for each kind and
// checks what the target saw, what the client got, and the report.
func TestProxyFaults(t *testing.T) {
	cases := []struct {
		kind       string
		delivered  int64 // requests the target saw
		answered   bool  // the client got an answer
		clientWait time.Duration
	}{
		{kind: "", delivered: 1, answered: true},
		{kind: httpproxy.LoseReply, delivered: 1},
		{kind: httpproxy.DropRequest, delivered: 0},
		{kind: httpproxy.DoubleDelivery, delivered: 2, answered: true},
		{kind: httpproxy.Delay, delivered: 1, clientWait: 200 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run("kind="+tc.kind, func(t *testing.T) {
			var seen atomic.Int64
			var header atomic.Value
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				seen.Add(1)
				header.Store(r.Header.Get(httpproxy.Header))
				if got := readAll(r.Body); got != "payload" {
					t.Errorf("target got body %q", got)
				}
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, `{"id":"7"}`)
			})
			p, err := httpproxy.Start(strings.TrimPrefix(srv.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			p.Hold = 30 * time.Second
			req, _ := http.NewRequest(http.MethodPost, "http://"+p.Addr()+"/tickets", strings.NewReader("payload"))
			req.GetBody = nil
			if tc.kind != "" {
				req.Header.Set(httpproxy.Header, tc.kind+" t1")
			}
			cl := &http.Client{Timeout: 10 * time.Second}
			if tc.clientWait > 0 {
				cl.Timeout = tc.clientWait
			}
			resp, err := cl.Do(req)
			if tc.answered {
				if err != nil {
					t.Fatalf("no answer: %v", err)
				}
				body := readAll(resp.Body)
				if resp.StatusCode != http.StatusCreated || body != `{"id":"7"}` {
					t.Errorf("answer %d %q, want the target's", resp.StatusCode, body)
				}
			} else if err == nil {
				resp.Body.Close()
				t.Fatalf("the client got an answer (%d) through %q", resp.StatusCode, tc.kind)
			}
			// The proxy records the report once the exchange is over.
			var rep httpproxy.Report
			var ok bool
			for range 500 {
				if rep, ok = p.Report("t1"); ok || tc.kind == "" {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if tc.kind != "" && (!ok || !rep.Fired) {
				t.Errorf("report %+v (found %v), want fired", rep, ok)
			}
			if got := seen.Load(); got != tc.delivered {
				t.Errorf("target saw %d request(s), want %d", got, tc.delivered)
			}
			if h, _ := header.Load().(string); h != "" {
				t.Errorf("the target saw the fault header %q", h)
			}
		})
	}
}

// TestProxyNotFired: a lost reply whose target does not answer did not
// fire, and says why; the client sees no answer, as without the proxy.
func TestProxyNotFired(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {})
	addr := strings.TrimPrefix(srv.URL, "http://")
	srv.Close() // nothing listens there now
	p, err := httpproxy.Start(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.Addr()+"/", strings.NewReader("x"))
	req.Header.Set(httpproxy.Header, httpproxy.LoseReply+" t2")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("answer %d, want the connection closed as the target's was", resp.StatusCode)
	}
	rep, ok := p.Report("t2")
	if !ok || rep.Fired || rep.Note == "" {
		t.Errorf("report %+v (found %v), want not fired with a note", rep, ok)
	}
}

// Issue 16.11: the proxy forwards only to a replica that listens. A
// target that starts listening a moment after the request arrived (a
// replica coming up) gets it; one that never listens is the proxy's own
// failure, which Failure reports once.
func TestProxyWaitsForTheTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p, err := httpproxy.Start(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		_ = srv.Serve(ln)
	}()
	resp, err := http.Post("http://"+p.Addr()+"/", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("a target up 0.3 s late: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("status %d, want the target's 201", resp.StatusCode)
	}
	if err := p.Failure(); err != nil {
		t.Errorf("failure %v for a target that came up", err)
	}
	_ = srv.Close()
	<-done

	gone, err := httpproxy.Start(addr) // nothing listens there now
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	if resp, err := http.Post("http://"+gone.Addr()+"/", "application/json", strings.NewReader("{}")); err == nil {
		resp.Body.Close()
		t.Fatalf("answer %d from a target that never listens", resp.StatusCode)
	}
	if err := gone.Failure(); err == nil || !strings.Contains(err.Error(), addr) {
		t.Errorf("failure %v, want one naming the target %s", err, addr)
	}
	if err := gone.Failure(); err != nil {
		t.Errorf("failure reported twice: %v", err)
	}
}
