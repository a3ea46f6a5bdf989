package client

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// newPosts builds n POSTs to url, each with a small body.
func newPosts(t testing.TB, n int, url string) []*http.Request {
	t.Helper()
	reqs := make([]*http.Request, n)
	for i := range reqs {
		r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(fmt.Sprintf(`{"i":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = r
	}
	return reqs
}

// A target's bursts keep their connections: a second burst opens none,
// and every call of both is answered. Without a keep, each call dials.
func TestBurstKeepsConnections(t *testing.T) {
	for _, mode := range []SyncMode{LastByte, Naive} {
		for _, keep := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s keep %v", mode, keep), func(t *testing.T) {
				var opened atomic.Int64
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					w.WriteHeader(http.StatusCreated)
					_, _ = io.WriteString(w, `{"id":"1"}`)
				}))
				srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
					if s == http.StateNew {
						opened.Add(1)
					}
				}
				srv.Start()
				defer srv.Close()
				opts := ReleaseOptions{Mode: mode}
				if keep {
					opts.keep = &warm{}
					defer opts.keep.closeAll()
				}
				for round := range 2 {
					for i, ex := range Release(t.Context(), newPosts(t, 4, srv.URL), opts) {
						if ex.Err != nil || ex.Resp.StatusCode != http.StatusCreated {
							t.Fatalf("round %d call %d: %v %v", round+1, i+1, ex.Err, ex.Resp)
						}
					}
				}
				want := int64(8)
				if keep {
					want = 4
				}
				if got := opened.Load(); got != want {
					t.Errorf("two bursts of 4 opened %d connections, want %d", got, want)
				}
			})
		}
	}
}

// A kept connection the server has closed is never used: the burst dials
// a fresh one, and every call is answered.
func TestBurstDropsAClosedKeptConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	opts := ReleaseOptions{keep: &warm{}}
	defer opts.keep.closeAll()
	Release(t.Context(), newPosts(t, 3, srv.URL), opts)
	srv.CloseClientConnections() // the server ends every idle connection
	for i, ex := range Release(t.Context(), newPosts(t, 3, srv.URL), opts) {
		if ex.Err != nil {
			t.Errorf("call %d after the server closed its idle connections: %v", i+1, ex.Err)
		}
	}
}

// dropSecond serves HTTP/1.1 on 127.0.0.1: each connection answers its
// first request 201, reads its second and, hold later (a handler that ran
// for that long), closes without an answer. It returns the URL and how
// many requests were read and answered; the server stops with the test.
func dropSecond(t *testing.T, hold time.Duration) (url string, read, answered *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	read, answered = new(atomic.Int64), new(atomic.Int64)
	done := make(chan struct{})
	t.Cleanup(func() { _ = ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for served := 0; ; served++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					read.Add(1)
					if served == 1 {
						time.Sleep(hold)
						return
					}
					answered.Add(1)
					if _, err := io.WriteString(c, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/", read, answered
}

// twoBursts sends a burst of one call to url, which must be answered, and
// then another over the connection it kept, and returns the second's
// exchange.
func twoBursts(t *testing.T, url string) Exchange {
	t.Helper()
	opts := ReleaseOptions{keep: &warm{}}
	defer opts.keep.closeAll()
	if ex := Release(t.Context(), newPosts(t, 1, url), opts); ex[0].Err != nil {
		t.Fatalf("first burst: %v", ex[0].Err)
	}
	return Release(t.Context(), newPosts(t, 1, url), opts)[0]
}

// The race left: the server closes a kept connection as the request
// arrives, without answering it (its idle timeout ran out as the bytes
// came). That call is sent again on a fresh connection and answered: a
// closed connection is never taken for the service's "no answer".
func TestBurstResendsOnAKeptConnectionClosedUnderIt(t *testing.T) {
	url, _, answered := dropSecond(t, 0)
	if ex := twoBursts(t, url); ex.Err != nil || ex.Resp.StatusCode != http.StatusCreated {
		t.Errorf("a call whose kept connection the server closed under it: %v %v, want it sent again and answered", ex.Err, ex.Resp)
	}
	if got := answered.Load(); got != 2 {
		t.Errorf("the server answered %d requests, want 2 (the second once, on a fresh connection)", got)
	}
}

// A server that read the request on a kept connection and then dropped
// it without an answer (a handler that panicked, maybe after it
// committed) is not an idle close: the request is not sent again, and the
// call has no answer.
func TestBurstDoesNotResendARequestTheServerRead(t *testing.T) {
	url, read, _ := dropSecond(t, 50*time.Millisecond) // the handler ran, then died
	if ex := twoBursts(t, url); ex.Err == nil {
		t.Errorf("a call the server read and dropped: %v, want no answer", ex.Resp.StatusCode)
	}
	if got := read.Load(); got != 2 {
		t.Errorf("the server read %d requests, want 2 (the dropped one not sent again)", got)
	}
}

// BenchmarkBurstConnections: a burst of 8 calls over fresh connections
// (Connection: close, a dial and an accept each) and over kept ones.
//
//	go test -run '^$' -bench BurstConnections -benchtime 300x -count 3 ./client/
func BenchmarkBurstConnections(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	for _, keep := range []bool{false, true} {
		b.Run(map[bool]string{false: "fresh", true: "kept"}[keep], func(b *testing.B) {
			opts := ReleaseOptions{}
			if keep {
				opts.keep = &warm{}
				defer opts.keep.closeAll()
			}
			for b.Loop() {
				for _, ex := range Release(b.Context(), newPosts(b, 8, srv.URL), opts) {
					if ex.Err != nil {
						b.Fatal(ex.Err)
					}
				}
			}
		})
	}
}
