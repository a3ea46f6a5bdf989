package client_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/model"
)

// seen is what a test server received.
type seen struct {
	method, uri string
	header      http.Header
	body        string
}

// newServer starts a loopback server that records each request and answers
// with answer; it is closed, with all its connections, when the test ends.
func newServer(t *testing.T, answer http.HandlerFunc) (*httptest.Server, <-chan seen) {
	t.Helper()
	got := make(chan seen, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{method: r.Method, uri: r.RequestURI, header: r.Header.Clone(), body: string(body)}
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// newHTTP makes a target with its own keep-alive client from a spec whose
// URL is relative to srv.
func newHTTP(t *testing.T, srv *httptest.Server, spec client.HTTPSpec) *client.HTTP {
	t.Helper()
	spec.URL = srv.URL + spec.URL
	tgt, err := client.NewHTTP(spec, nil)
	if err != nil {
		t.Fatalf("NewHTTP(%+v): %v", spec, err)
	}
	return tgt
}

func created(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, `{"id":1}`)
}

func TestHTTPRequest(t *testing.T) {
	headers := map[string]string{
		"Idempotency-Key": "{{key}}",
		"X-Tenant":        "{{tenant}}",
		"X-Tag":           "tag={{tag}}",
	}
	req := client.Request{Tenant: "ns-1/A b", Key: "ns-1 k1/é", Tag: "ns-1.A.k1.v0", Body: []byte(`{"subject":"a"}`)}
	keyless := req
	keyless.NoKey = true

	tests := []struct {
		name    string
		spec    client.HTTPSpec
		req     client.Request
		method  string
		uri     string
		headers map[string]string // "" means absent
	}{
		{
			name: "tenant path-escaped in the URL, key and tenant verbatim in headers",
			spec: client.HTTPSpec{URL: "/t/{{tenant}}/tickets", ID: "/id", Headers: headers},
			req:  req, method: "POST", uri: "/t/ns-1%2FA%20b/tickets",
			headers: map[string]string{
				"Idempotency-Key": "ns-1 k1/é",
				"X-Tenant":        "ns-1/A b",
				"X-Tag":           "tag=ns-1.A.k1.v0",
				"Content-Type":    "application/json",
			},
		},
		{
			name: "keyless call omits the key header only",
			spec: client.HTTPSpec{URL: "/t/{{tenant}}/tickets", ID: "/id", Headers: headers},
			req:  keyless, method: "POST", uri: "/t/ns-1%2FA%20b/tickets",
			headers: map[string]string{"Idempotency-Key": "", "X-Tenant": "ns-1/A b", "X-Tag": "tag=ns-1.A.k1.v0"},
		},
		{
			name: "keyless call omits a key header written with spaces",
			spec: client.HTTPSpec{URL: "/tickets", ID: "/id", Headers: map[string]string{"Idempotency-Key": "{{ key }}", "X-Tenant": "{{ tenant }}"}},
			req:  keyless, method: "POST", uri: "/tickets",
			headers: map[string]string{"Idempotency-Key": "", "X-Tenant": "ns-1/A b"},
		},
		{
			name: "keyless call omits a header that embeds the key",
			spec: client.HTTPSpec{URL: "/tickets", ID: "/id", Headers: map[string]string{"Authorization": "Key {{tenant}}:{{key}}"}},
			req:  keyless, method: "POST", uri: "/tickets",
			headers: map[string]string{"Authorization": ""},
		},
		{
			name: "method and content type from the spec",
			spec: client.HTTPSpec{URL: "/tickets/{{tag}}", Method: "PUT", ID: "/id", Headers: map[string]string{"Content-Type": "application/vnd.api+json"}},
			req:  req, method: "PUT", uri: "/tickets/ns-1.A.k1.v0",
			headers: map[string]string{"Content-Type": "application/vnd.api+json"},
		},
		{
			name: "tenant and key in the query",
			spec: client.HTTPSpec{URL: "/tickets?tenant={{tenant}}", ID: "/id"},
			req:  client.Request{Tenant: "ns-1-A", Key: "k", Body: []byte(`{}`)}, method: "POST", uri: "/tickets?tenant=ns-1-A",
			headers: map[string]string{"Content-Type": "application/json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, got := newServer(t, created)
			resp, err := newHTTP(t, srv, tt.spec).Do(context.Background(), tt.req)
			if err != nil || resp.Status != http.StatusCreated {
				t.Fatalf("Do = %+v, %v; want 201", resp, err)
			}
			s := <-got
			if s.method != tt.method || s.uri != tt.uri {
				t.Errorf("request line %s %s, want %s %s", s.method, s.uri, tt.method, tt.uri)
			}
			if s.body != string(tt.req.Body) {
				t.Errorf("body %q, want %q", s.body, tt.req.Body)
			}
			for name, want := range tt.headers {
				if vs := s.header.Values(name); want == "" && len(vs) > 0 {
					t.Errorf("header %s = %q, want it omitted", name, vs)
				} else if want != "" && (len(vs) != 1 || vs[0] != want) {
					t.Errorf("header %s = %q, want %q", name, vs, want)
				}
			}
		})
	}
}

func TestHTTPResponse(t *testing.T) {
	tests := []struct {
		name     string
		id       string
		status   int
		location string
		body     string
		wantID   string
	}{
		{"number ID from a JSON pointer", "/id", 201, "", `{"id":42}`, "42"},
		{"string ID from a nested JSON pointer", "/ticket/id", 200, "", `{"ticket":{"id":"t-9"}}`, "t-9"},
		{"2xx without the pointed value", "/ticket/id", 201, "", `{"ticket":{}}`, ""},
		{"2xx with an empty body", "/id", 201, "", ``, ""},
		{"2xx with a body that is not JSON", "/id", 200, "", `created`, ""},
		// The ID is read whatever the status: the contract's answer matchers
		// say which answers carry one (a GoCardless replay is a 409 with it).
		{"non-2xx with an ID in the body", "/id", 409, "", `{"id":42}`, "42"},
		{"non-2xx 5xx", "/id", 500, "", `{"id":42}`, "42"},
		{"absolute Location", client.IDFromLocation, 201, "http://api.example.com/v1/tickets/77", ``, "77"},
		{"relative Location", client.IDFromLocation, 201, "/v1/tickets/78", ``, "78"},
		{"relative Location with a query", client.IDFromLocation, 201, "/v1/tickets/79?view=full", ``, "79"},
		{"Location with a trailing slash", client.IDFromLocation, 201, "tickets/80/", ``, "80"},
		{"2xx without Location", client.IDFromLocation, 201, "", `{"id":42}`, ""},
		{"Location without a path", client.IDFromLocation, 201, "http://api.example.com", ``, ""},
		{"Location of the root", client.IDFromLocation, 201, "/", ``, ""},
		{"non-2xx with a Location", client.IDFromLocation, 303, "/v1/tickets/81", ``, "81"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
				if tt.location != "" {
					w.Header().Set("Location", tt.location)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			resp, err := newHTTP(t, srv, client.HTTPSpec{URL: "/tickets", ID: tt.id}).Do(context.Background(), client.Request{Key: "k"})
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			if resp.Status != tt.status || resp.ID != tt.wantID || string(resp.Body) != tt.body {
				t.Errorf("Do = {%d %q %q}, want {%d %q %q}", resp.Status, resp.ID, resp.Body, tt.status, tt.wantID, tt.body)
			}
		})
	}
}

func TestHTTPBodyIsBounded(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(201)
		io.WriteString(w, strings.Repeat("x", 1<<20))
	})
	resp, err := newHTTP(t, srv, client.HTTPSpec{URL: "/", ID: "/id"}).Do(context.Background(), client.Request{})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if len(resp.Body) == 0 || len(resp.Body) >= 1<<20 {
		t.Errorf("kept %d bytes of a 1 MiB body, want a bounded prefix", len(resp.Body))
	}
}

func TestHTTPUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tgt, err := client.NewHTTP(client.HTTPSpec{URL: "http://" + addr + "/tickets", ID: "/id", Timeout: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tgt.Do(context.Background(), client.Request{Tenant: "A", Key: "k1"})
	if !errors.Is(err, client.ErrUnreachable) {
		t.Fatalf("Do on closed port %s: error = %v, want client.ErrUnreachable", addr, err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error %q does not name the address", err)
	}
}

func TestHTTPTimeout(t *testing.T) {
	release := make(chan struct{})
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before srv.Close, so no handler waits
	const timeout = 100 * time.Millisecond
	tgt := newHTTP(t, srv, client.HTTPSpec{URL: "/tickets", ID: "/id", Timeout: timeout})

	start := time.Now()
	resp, err := tgt.Do(context.Background(), client.Request{Tenant: "A", Key: "k1"})
	elapsed := time.Since(start)
	if err == nil {
		t.Fatalf("Do = %+v, want an error after the %v timeout", resp, timeout)
	}
	if errors.Is(err, client.ErrUnreachable) {
		t.Errorf("a timeout is an unknown outcome, not an unreachable target: %v", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want one that says the deadline passed", err)
	}
	if elapsed > timeout+2*time.Second {
		t.Errorf("Do returned after %v, want about %v", elapsed, timeout)
	}
}

func TestHTTPCallerCancels(t *testing.T) {
	release := make(chan struct{})
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	tgt := newHTTP(t, srv, client.HTTPSpec{URL: "/tickets", ID: "/id", Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := tgt.Do(ctx, client.Request{Key: "k1"}); err == nil || errors.Is(err, client.ErrUnreachable) {
		t.Errorf("Do with a cancelled context: error = %v, want a plain error", err)
	}
}

func TestNewHTTP(t *testing.T) {
	tgt, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/t/{{ tenant }}", ID: "/id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tgt.Spec(); got.Method != http.MethodPost || got.Timeout != 10*time.Second {
		t.Errorf("defaults: method %q timeout %v, want POST and 10s", got.Method, got.Timeout)
	}
	hc := &http.Client{}
	if _, err := client.NewHTTP(client.HTTPSpec{URL: "https://example.com/{{tenant}}/x", ID: client.IDFromLocation, Method: "PUT"}, hc); err != nil {
		t.Errorf("tenant in the path, Location ID: %v", err)
	}
}

func TestNewHTTPRejects(t *testing.T) {
	tests := []struct {
		name string
		spec client.HTTPSpec
		want []string // substrings of the error
	}{
		{"relative URL", client.HTTPSpec{URL: "/tickets", ID: "/id"}, []string{"target.url", `"/tickets"`, "absolute"}},
		{"URL without scheme", client.HTTPSpec{URL: "localhost:8080/tickets", ID: "/id"}, []string{"target.url"}},
		{"other scheme", client.HTTPSpec{URL: "ftp://example.com/t", ID: "/id"}, []string{"target.url", "http://"}},
		{"URL without host", client.HTTPSpec{URL: "http:///tickets", ID: "/id"}, []string{"target.url"}},
		{"empty URL", client.HTTPSpec{ID: "/id"}, []string{"target.url"}},
		{"ID not a pointer", client.HTTPSpec{URL: "http://x/t", ID: "id"}, []string{"target.id", `"id"`, "JSON pointer", "location"}},
		{"no ID", client.HTTPSpec{URL: "http://x/t"}, []string{"target.id"}},
		{"Location spelled otherwise", client.HTTPSpec{URL: "http://x/t", ID: "Location"}, []string{"target.id"}},
		{"unknown placeholder in the URL", client.HTTPSpec{URL: "http://x/t/{{tenat}}", ID: "/id"}, []string{"target.url", "{{tenat}}", "{{tenant}}"}},
		{"empty placeholder in the URL", client.HTTPSpec{URL: "http://x/t/{{}}", ID: "/id"}, []string{"target.url", "{{}}"}},
		{"unknown placeholder in a header", client.HTTPSpec{URL: "http://x/t", ID: "/id", Headers: map[string]string{"Idempotency-Key": "{{idem_key}}"}},
			[]string{"target.headers.Idempotency-Key", "{{idem_key}}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.NewHTTP(tt.spec, nil)
			if err == nil {
				t.Fatalf("NewHTTP(%+v) = nil error", tt.spec)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// An HTTP target sends each call from a request template and reads the
// resource ID from the answer.
func ExampleNewHTTP() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/tenants/"+r.Header.Get("X-Tenant")+"/tickets/1042")
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()

	tgt, err := client.NewHTTP(client.HTTPSpec{
		URL:     srv.URL + "/tickets",
		Headers: map[string]string{"Idempotency-Key": "{{key}}", "X-Tenant": "{{tenant}}"},
		ID:      client.IDFromLocation,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := tgt.Do(context.Background(), client.Request{Tenant: "run1-A", Key: "run1-k1", Body: []byte(`{"subject":"Printer offline"}`)})
	fmt.Println(resp.Status, resp.ID, err)
	// Output: 201 1042 <nil>
}

// net/http would silently resend a request carrying an Idempotency-Key
// on a dead keep-alive connection; the target must never let it.
func TestHTTPNeverResends(t *testing.T) {
	var seen *http.Request
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		seen = r
		return &http.Response{StatusCode: 201, Body: io.NopCloser(strings.NewReader(`{"id": 1}`)), Header: http.Header{}}, nil
	})}
	h, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/x", Headers: map[string]string{"Idempotency-Key": "{{key}}"}, ID: "/id"}, hc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Do(t.Context(), client.Request{Key: "k", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if seen == nil || seen.GetBody != nil {
		t.Fatal("the request can be rewound and resent by net/http (GetBody is set)")
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHTTPWithHosts(t *testing.T) {
	var srvs []*httptest.Server
	var got []<-chan seen
	var addrs []string
	for range 2 {
		srv, ch := newServer(t, created)
		srvs, got, addrs = append(srvs, srv), append(got, ch), append(addrs, srv.Listener.Addr().String())
	}
	tgt, err := client.NewHTTP(client.HTTPSpec{URL: "http://user@service.invalid:8080/t/{{tenant}}/tickets?k={{key}}", ID: "/id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	spread := tgt.WithHosts(addrs)
	defer spread.CloseIdleConnections()
	for _, tt := range []struct{ replica, server int }{{0, 0}, {1, 1}, {2, 0}, {-1, 1}} {
		resp, err := spread.Do(context.Background(), client.Request{Tenant: "A b", Key: "k1", Replica: tt.replica})
		if err != nil || resp.Status != http.StatusCreated {
			t.Fatalf("Replica %d: Do = %+v, %v", tt.replica, resp, err)
		}
		select {
		case s := <-got[tt.server]:
			if s.uri != "/t/A%20b/tickets?k=k1" {
				t.Errorf("Replica %d: request URI %q, want the template's path and query", tt.replica, s.uri)
			}
		default:
			t.Errorf("Replica %d: server %d got nothing", tt.replica, tt.server)
		}
		if len(got[1-tt.server]) != 0 {
			t.Errorf("Replica %d: server %d got the call too", tt.replica, 1-tt.server)
		}
	}

	// The original target is unchanged, and no hosts means the template's.
	direct, err := client.NewHTTP(client.HTTPSpec{URL: srvs[1].URL + "/x", ID: "/id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.CloseIdleConnections()
	for _, h := range []*client.HTTP{direct, direct.WithHosts(nil)} {
		if _, err := h.Do(context.Background(), client.Request{Replica: 0}); err != nil {
			t.Fatal(err)
		}
		if s := <-got[1]; s.uri != "/x" {
			t.Errorf("without hosts: %q reached server 1, want /x", s.uri)
		}
	}
	req, _ := tgt.NewRequest(context.Background(), client.Request{})
	if req.URL.Host != "service.invalid:8080" {
		t.Errorf("WithHosts changed the original target: it now sends to %s", req.URL.Host)
	}
}

// NewRequest and ParseResponse are Do in two halves, for a sender that uses
// connections of its own.
func TestHTTPNewRequestParseResponse(t *testing.T) {
	srv, got := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", "/v1/tickets/77")
		w.WriteHeader(http.StatusCreated)
	})
	tgt, err := client.NewHTTP(client.HTTPSpec{
		URL: "http://service.invalid/t/{{tenant}}", Method: "PUT", ID: client.IDFromLocation,
		Headers: map[string]string{"Idempotency-Key": "{{key}}"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tgt = tgt.WithHosts([]string{srv.Listener.Addr().String()})
	body := `{"subject":"a"}`
	req, err := tgt.NewRequest(context.Background(), client.Request{Tenant: "A", Key: "k1", Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "PUT" || req.URL.String() != srv.URL+"/t/A" || req.Header.Get("Idempotency-Key") != "k1" || req.Header.Get("Content-Type") != "application/json" {
		t.Errorf("NewRequest = %s %s %v", req.Method, req.URL, req.Header)
	}

	// Sent on a raw connection of our own, as a burst sender would.
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if s := <-got; s.method != "PUT" || s.uri != "/t/A" || s.body != body || s.header.Get("Idempotency-Key") != "k1" {
		t.Errorf("server got %+v", s)
	}
	if r := tgt.ParseResponse(resp, answer); r.Status != http.StatusCreated || r.ID != "77" {
		t.Errorf("ParseResponse = %+v, want 201 with ID 77", r)
	}
	// The ID is read whatever the status: the contract's answer matchers
	// say whether a 409 is a replay that carries it (GoCardless) or a refusal.
	replay := &http.Response{StatusCode: http.StatusConflict, Header: http.Header{"Location": {"/v1/tickets/78"}}}
	if r := tgt.ParseResponse(replay, []byte(`x`)); r.Status != http.StatusConflict || r.ID != "78" || string(r.Body) != "x" {
		t.Errorf("ParseResponse of a 409 with a Location = %+v, want ID 78", r)
	}
}

// The same for a single call: an answer that came while the body was still
// being written is the call's answer.
func TestHTTPKeepsAnAnswerSentWhileTheBodyWasWritten(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"body too large"}`, http.StatusRequestEntityTooLarge)
	})
	h, err := client.NewHTTP(client.HTTPSpec{URL: srv.URL + "/upload", ID: "/id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseIdleConnections()
	resp, err := h.Do(t.Context(), client.Request{Body: []byte(strings.Repeat("x", 16<<20))})
	if err != nil || resp.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("Do = %d, %v; want the 413 the server sent", resp.Status, err)
	}
}

// Request noise: what a retry adds without meaning another action, as it
// goes on the wire.
func TestHTTPNoise(t *testing.T) {
	h, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/t/{{tenant}}?v=1", ID: "/id",
		Headers: map[string]string{"Idempotency-Key": "{{key}}"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wire := func(noise model.Noise) string {
		hr, err := h.NewRequest(t.Context(), client.Request{Tenant: "A", Key: "k1", Body: []byte(`{}`), Noise: noise})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := hr.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	plain := wire(model.NoiseNone)
	if !strings.HasPrefix(plain, "POST /t/A?v=1 HTTP/1.1") || !strings.Contains(plain, "Idempotency-Key: k1") {
		t.Fatalf("plain request:\n%s", plain)
	}
	for noise, want := range map[model.Noise][]string{
		model.NoiseQuery:      {"POST /t/A?", "trace=", "v=1", "Idempotency-Key: k1"},
		model.NoiseTrace:      {"Traceparent: 00-", "X-Request-Id: ", "Idempotency-Key: k1"},
		model.NoiseHeaderCase: {"idempotency-key: k1", "content-type: application/json"},
	} {
		got := wire(noise)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the request lacks %q:\n%s", noise, w, got)
			}
		}
		if got == plain {
			t.Errorf("%s added nothing", noise)
		}
	}
}

// Noise never touches what the template uses: on a service whose key header
// is X-Request-Id (in any case) and whose URL has a trace parameter, a
// noisy call carries its own key or none, and the template's parameter as
// the template has it.
func TestHTTPNoiseLeavesTheTemplateAlone(t *testing.T) {
	h, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/t?trace={{tag}}&b=%2F", ID: "/id",
		Headers: map[string]string{"x-request-id": "{{key}}", "X-Tenant": "{{tenant}}"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, noise := range []model.Noise{model.NoiseQuery, model.NoiseTrace, model.NoiseHeaderCase} {
		for _, noKey := range []bool{false, true} {
			hr, err := h.NewRequest(t.Context(), client.Request{Tenant: "A", Key: "k1", NoKey: noKey, Tag: "T1", Body: []byte(`{}`), Noise: noise})
			if err != nil {
				t.Fatal(err)
			}
			want := "k1"
			if noKey {
				want = ""
			}
			var got string
			for name, vals := range hr.Header {
				if strings.EqualFold(name, "X-Request-Id") {
					got = strings.Join(vals, ",")
				}
			}
			if got != want {
				t.Errorf("%s, no key %v: X-Request-Id %q, want %q", noise, noKey, got, want)
			}
			if q := hr.URL.Query(); q.Get("trace") != "T1" || len(q["trace"]) != 1 {
				t.Errorf("%s: query %q: the template's trace=T1 was changed", noise, hr.URL.RawQuery)
			}
			if !strings.HasPrefix(hr.URL.RawQuery, "trace=T1&b=%2F") {
				t.Errorf("%s: query %q: the template's query is not as written", noise, hr.URL.RawQuery)
			}
		}
	}
}

// The key may travel in the query: escaped as a query value (a key with &
// or + stays one value), and left out of a keyless call.
func TestHTTPKeyInQuery(t *testing.T) {
	h, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/t/{{tenant}}?idempotency_key={{key}}&v=1", ID: "/id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const key = "ns-k1&x=2+ é"
	hr, err := h.NewRequest(t.Context(), client.Request{Tenant: "A b", Key: key, Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if q := hr.URL.Query(); q.Get("idempotency_key") != key || q.Get("v") != "1" || len(q) != 2 || hr.URL.Path != "/t/A b" {
		t.Errorf("url %s: query %v; want the key %q as one value", hr.URL, q, key)
	}
	hr, err = h.NewRequest(t.Context(), client.Request{Tenant: "A", NoKey: true, Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if q := hr.URL.Query(); q.Has("idempotency_key") || q.Get("v") != "1" {
		t.Errorf("keyless url %s; want no idempotency_key parameter", hr.URL)
	}
}

// A form body goes with its content type; an unknown body format is
// refused, naming it.
func TestHTTPFormBody(t *testing.T) {
	h, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/v1/charges", ID: "/id", Body: client.BodyForm,
		Headers: map[string]string{"Idempotency-Key": "{{key}}"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hr, err := h.NewRequest(t.Context(), client.Request{Key: "k1", Body: []byte("amount=1250")})
	if err != nil {
		t.Fatal(err)
	}
	if ct := hr.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		t.Errorf("content type %q", ct)
	}
	if _, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/", ID: "/id", Body: "xml"}, nil); err == nil || !strings.Contains(err.Error(), `target.body "xml"`) {
		t.Errorf("body xml: %v; want an error naming target.body", err)
	}
}
