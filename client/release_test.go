package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/client"
)

var modes = []client.SyncMode{client.LastByte, client.Naive}

func TestParseSyncMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want client.SyncMode
		err  string
	}{
		{"", client.LastByte, ""},
		{"lastbyte", client.LastByte, ""},
		{"naive", client.Naive, ""},
		{"LastByte", "", `client: sync mode "LastByte": want "lastbyte" (the default) or "naive"`},
	} {
		got, err := client.ParseSyncMode(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseSyncMode(%q) error = %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSyncMode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// echo answers with the status in ?status= and the path and body it got.
func echo(w http.ResponseWriter, r *http.Request) {
	status, _ := strconv.Atoi(r.URL.Query().Get("status"))
	body := readAll(r.Body)
	w.WriteHeader(status)
	fmt.Fprintf(w, "%s %s", r.URL.Path, body)
}

func TestBurstAnswersInOrder(t *testing.T) {
	srv := serve(t, echo)
	statuses := []int{201, 200, 409, 422, 500}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			const n = 16
			reqs := posts(t, n, func(i int) string {
				return fmt.Sprintf("%s/r/%d?status=%d", srv.URL, i, statuses[i%len(statuses)])
			})
			var answered atomic.Int64
			start := time.Now()
			ex := client.Release(t.Context(), reqs, client.ReleaseOptions{Mode: mode, Answered: &answered})
			if len(ex) != n {
				t.Fatalf("got %d exchanges, want %d", len(ex), n)
			}
			for i, e := range ex {
				if e.Err != nil {
					t.Fatalf("exchange %d: %v", i, e.Err)
				}
				if got, want := e.Resp.StatusCode, statuses[i%len(statuses)]; got != want {
					t.Errorf("exchange %d: status %d, want %d", i, got, want)
				}
				if got, want := string(e.Body), fmt.Sprintf("/r/%d body-%d", i, i); got != want {
					t.Errorf("exchange %d: body %q, want %q", i, got, want)
				}
				if e.Sent.Before(start) || e.Done.Before(e.Sent) {
					t.Errorf("exchange %d: sent %v, done %v, burst started %v: want start <= sent <= done", i, e.Sent, e.Done, start)
				}
				if e.Resp.Body != http.NoBody {
					t.Errorf("exchange %d: Resp.Body is %T, want http.NoBody (the body is in Body)", i, e.Resp.Body)
				}
			}
			if got := answered.Load(); got != n {
				t.Errorf("Answered = %d, want %d", got, n)
			}
		})
	}
}

func TestBurstFailedRequestsDoNotStopOthers(t *testing.T) {
	srv := serve(t, echo)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			urls := []string{
				srv.URL + "/ok?status=201",
				"http://" + closed + "/nobody-home",
				"https://" + strings.TrimPrefix(srv.URL, "http://") + "/tls",
				srv.URL + "/ok?status=201",
			}
			reqs := posts(t, len(urls), func(i int) string { return urls[i] })
			var answered atomic.Int64
			ex := client.Release(t.Context(), reqs, client.ReleaseOptions{Mode: mode, Answered: &answered})
			for _, i := range []int{0, 3} {
				if ex[i].Err != nil || ex[i].Resp.StatusCode != 201 {
					t.Errorf("exchange %d: %v, want 201", i, ex[i].Err)
				}
			}
			for i, want := range map[int]string{
				1: "client: burst request 2 (POST http://" + closed + "/nobody-home): dial: ",
				2: "client: burst request 3 (POST https://",
			} {
				if ex[i].Err == nil || ex[i].Resp != nil || !strings.HasPrefix(ex[i].Err.Error(), want) {
					t.Errorf("exchange %d: resp %v, err %v; want no answer and an error starting %q", i, ex[i].Resp, ex[i].Err, want)
				}
			}
			// https:// is burst too (over TLS), so against a plain HTTP
			// server it fails at the handshake, as dialling.
			if !strings.Contains(ex[2].Err.Error(), "dial: tls:") {
				t.Errorf("https against plain HTTP: %v, want it to fail at the TLS handshake", ex[2].Err)
			}
			if got := answered.Load(); got != 2 {
				t.Errorf("Answered = %d, want 2: failures are not answers", got)
			}
		})
	}
}

// TestBurstEndsPromptly: a handler that never answers holds a burst only
// until its timeout or its context ends, and leaves no goroutine behind.
func TestBurstEndsPromptly(t *testing.T) {
	// The handler waits until the client goes away: the server notices the
	// closed connection and cancels the request's context.
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		<-r.Context().Done()
	})
	for _, mode := range modes {
		for _, tc := range []struct {
			name    string
			timeout time.Duration
			cancel  time.Duration
			want    string
			is      error
		}{
			{"timeout", 200 * time.Millisecond, 0, "no answer within 200ms (ReleaseOptions.Timeout)", nil},
			{"cancel", time.Minute, 200 * time.Millisecond, "burst cancelled: context canceled", context.Canceled},
		} {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.cancel > 0 {
					timer := time.AfterFunc(tc.cancel, cancel)
					defer timer.Stop()
				}
				reqs := posts(t, 4, func(int) string { return srv.URL + "/hang" })
				start := time.Now()
				ex := client.Release(ctx, reqs, client.ReleaseOptions{Mode: mode, Timeout: tc.timeout})
				// 200ms plus generous slack for a loaded machine under -race;
				// a burst that ignored the timeout would take a minute.
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("Burst took %v, want about 200ms", took)
				}
				for i, e := range ex {
					if e.Err == nil || !strings.Contains(e.Err.Error(), tc.want) {
						t.Errorf("exchange %d: %v, want an error saying %q", i, e.Err, tc.want)
					}
					if tc.is != nil && !errors.Is(e.Err, tc.is) {
						t.Errorf("exchange %d: %v is not %v", i, e.Err, tc.is)
					}
				}
			})
		}
	}
}

// TestBurstSpread checks that the handlers of a 16-call last-byte burst
// are entered close together. The bound is deliberately loose: a release
// takes ~5µs per connection and handler entry spreads by tens of µs on an
// idle machine, but this runs under -race next to other test binaries on
// two cores, where one descheduling costs milliseconds. 50ms still catches
// a burst that is not synchronised at all (sequential requests each wait
// for their answer). TestLastByteHoldsHandlers is the exact test;
// internal/testbed/bench/spread_test.go measures.
func TestBurstSpread(t *testing.T) {
	var mu sync.Mutex
	var entered []time.Time
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		mu.Lock()
		entered = append(entered, now)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond) // the others arrive while this one works
		w.WriteHeader(http.StatusCreated)
	})
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			mu.Lock()
			entered = nil
			mu.Unlock()
			ex := client.Release(t.Context(), posts(t, 16, func(int) string { return srv.URL }), client.ReleaseOptions{Mode: mode})
			for i, e := range ex {
				if e.Err != nil {
					t.Fatalf("exchange %d: %v", i, e.Err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			lo, hi := entered[0], entered[0]
			for _, e := range entered {
				if e.Before(lo) {
					lo = e
				}
				if e.After(hi) {
					hi = e
				}
			}
			t.Logf("%s: handler entry spread %v over %d calls", mode, hi.Sub(lo), len(entered))
			if mode == client.LastByte && hi.Sub(lo) > 50*time.Millisecond {
				t.Errorf("handler entry spread %v, want under 50ms", hi.Sub(lo))
			}
		})
	}
}

// A server that answers before it has read the whole body (413 for a body
// too large) and closes: the client's write fails, but the server DID
// answer, and its answer is what is recorded, not "no answer".
func TestBurstKeepsAnAnswerSentWhileTheBodyWasWritten(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"body too large"}`, http.StatusRequestEntityTooLarge)
	})
	big := strings.Repeat("x", 16<<20)
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			reqs := make([]*http.Request, 2)
			for i := range reqs {
				r, err := http.NewRequest(http.MethodPost, srv.URL+"/upload", strings.NewReader(big))
				if err != nil {
					t.Fatal(err)
				}
				reqs[i] = r
			}
			for i, ex := range client.Release(t.Context(), reqs, client.ReleaseOptions{Mode: mode, Timeout: 10 * time.Second}) {
				if ex.Err != nil || ex.Resp == nil || ex.Resp.StatusCode != http.StatusRequestEntityTooLarge {
					t.Errorf("exchange %d: resp %v, err %v; want the 413 the server sent", i, ex.Resp, ex.Err)
				}
			}
		})
	}
}
