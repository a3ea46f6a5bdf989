package target_test

import (
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

	"github.com/idemstress/idemstress/target"
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
func newHTTP(t *testing.T, srv *httptest.Server, spec target.HTTPSpec) *target.HTTP {
	t.Helper()
	spec.URL = srv.URL + spec.URL
	tgt, err := target.NewHTTP(spec, nil)
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
	req := target.Request{Tenant: "ns-1/A b", Key: "ns-1 k1/é", Tag: "ns-1.A.k1.v0", Body: []byte(`{"subject":"a"}`)}
	keyless := req
	keyless.NoKey = true

	tests := []struct {
		name    string
		spec    target.HTTPSpec
		req     target.Request
		method  string
		uri     string
		headers map[string]string // "" means absent
	}{
		{
			name: "tenant path-escaped in the URL, key and tenant verbatim in headers",
			spec: target.HTTPSpec{URL: "/t/{{tenant}}/tickets", ID: "/id", Headers: headers},
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
			spec: target.HTTPSpec{URL: "/t/{{tenant}}/tickets", ID: "/id", Headers: headers},
			req:  keyless, method: "POST", uri: "/t/ns-1%2FA%20b/tickets",
			headers: map[string]string{"Idempotency-Key": "", "X-Tenant": "ns-1/A b", "X-Tag": "tag=ns-1.A.k1.v0"},
		},
		{
			name: "keyless call omits a key header written with spaces",
			spec: target.HTTPSpec{URL: "/tickets", ID: "/id", Headers: map[string]string{"Idempotency-Key": "{{ key }}", "X-Tenant": "{{ tenant }}"}},
			req:  keyless, method: "POST", uri: "/tickets",
			headers: map[string]string{"Idempotency-Key": "", "X-Tenant": "ns-1/A b"},
		},
		{
			name: "keyless call omits a header that embeds the key",
			spec: target.HTTPSpec{URL: "/tickets", ID: "/id", Headers: map[string]string{"Authorization": "Key {{tenant}}:{{key}}"}},
			req:  keyless, method: "POST", uri: "/tickets",
			headers: map[string]string{"Authorization": ""},
		},
		{
			name: "method and content type from the spec",
			spec: target.HTTPSpec{URL: "/tickets/{{tag}}", Method: "PUT", ID: "/id", Headers: map[string]string{"Content-Type": "application/vnd.api+json"}},
			req:  req, method: "PUT", uri: "/tickets/ns-1.A.k1.v0",
			headers: map[string]string{"Content-Type": "application/vnd.api+json"},
		},
		{
			name: "tenant and key in the query",
			spec: target.HTTPSpec{URL: "/tickets?tenant={{tenant}}", ID: "/id"},
			req:  target.Request{Tenant: "ns-1-A", Key: "k", Body: []byte(`{}`)}, method: "POST", uri: "/tickets?tenant=ns-1-A",
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
		{"non-2xx with an ID in the body", "/id", 409, "", `{"id":42}`, ""},
		{"non-2xx 5xx", "/id", 500, "", `{"id":42}`, ""},
		{"absolute Location", target.IDFromLocation, 201, "http://api.example.com/v1/tickets/77", ``, "77"},
		{"relative Location", target.IDFromLocation, 201, "/v1/tickets/78", ``, "78"},
		{"relative Location with a query", target.IDFromLocation, 201, "/v1/tickets/79?view=full", ``, "79"},
		{"Location with a trailing slash", target.IDFromLocation, 201, "tickets/80/", ``, "80"},
		{"2xx without Location", target.IDFromLocation, 201, "", `{"id":42}`, ""},
		{"Location without a path", target.IDFromLocation, 201, "http://api.example.com", ``, ""},
		{"Location of the root", target.IDFromLocation, 201, "/", ``, ""},
		{"non-2xx with a Location", target.IDFromLocation, 303, "/v1/tickets/81", ``, ""},
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
			resp, err := newHTTP(t, srv, target.HTTPSpec{URL: "/tickets", ID: tt.id}).Do(context.Background(), target.Request{Key: "k"})
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
	resp, err := newHTTP(t, srv, target.HTTPSpec{URL: "/", ID: "/id"}).Do(context.Background(), target.Request{})
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
	tgt, err := target.NewHTTP(target.HTTPSpec{URL: "http://" + addr + "/tickets", ID: "/id", Timeout: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tgt.Do(context.Background(), target.Request{Tenant: "A", Key: "k1"})
	if !errors.Is(err, target.ErrUnreachable) {
		t.Fatalf("Do on closed port %s: error = %v, want target.ErrUnreachable", addr, err)
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
	tgt := newHTTP(t, srv, target.HTTPSpec{URL: "/tickets", ID: "/id", Timeout: timeout})

	start := time.Now()
	resp, err := tgt.Do(context.Background(), target.Request{Tenant: "A", Key: "k1"})
	elapsed := time.Since(start)
	if err == nil {
		t.Fatalf("Do = %+v, want an error after the %v timeout", resp, timeout)
	}
	if errors.Is(err, target.ErrUnreachable) {
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
	tgt := newHTTP(t, srv, target.HTTPSpec{URL: "/tickets", ID: "/id", Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := tgt.Do(ctx, target.Request{Key: "k1"}); err == nil || errors.Is(err, target.ErrUnreachable) {
		t.Errorf("Do with a cancelled context: error = %v, want a plain error", err)
	}
}

func TestNewHTTP(t *testing.T) {
	tgt, err := target.NewHTTP(target.HTTPSpec{URL: "http://127.0.0.1:1/t/{{ tenant }}", ID: "/id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tgt.Spec(); got.Method != http.MethodPost || got.Timeout != 10*time.Second {
		t.Errorf("defaults: method %q timeout %v, want POST and 10s", got.Method, got.Timeout)
	}
	client := &http.Client{}
	if _, err := target.NewHTTP(target.HTTPSpec{URL: "https://{{tenant}}.example.com/x", ID: target.IDFromLocation, Method: "PUT"}, client); err != nil {
		t.Errorf("tenant in the host, Location ID: %v", err)
	}
}

func TestNewHTTPRejects(t *testing.T) {
	tests := []struct {
		name string
		spec target.HTTPSpec
		want []string // substrings of the error
	}{
		{"relative URL", target.HTTPSpec{URL: "/tickets", ID: "/id"}, []string{"target.url", `"/tickets"`, "absolute"}},
		{"URL without scheme", target.HTTPSpec{URL: "localhost:8080/tickets", ID: "/id"}, []string{"target.url"}},
		{"other scheme", target.HTTPSpec{URL: "ftp://example.com/t", ID: "/id"}, []string{"target.url", "http://"}},
		{"URL without host", target.HTTPSpec{URL: "http:///tickets", ID: "/id"}, []string{"target.url"}},
		{"empty URL", target.HTTPSpec{ID: "/id"}, []string{"target.url"}},
		{"ID not a pointer", target.HTTPSpec{URL: "http://x/t", ID: "id"}, []string{"target.id", `"id"`, "JSON pointer", "location"}},
		{"no ID", target.HTTPSpec{URL: "http://x/t"}, []string{"target.id"}},
		{"Location spelled otherwise", target.HTTPSpec{URL: "http://x/t", ID: "Location"}, []string{"target.id"}},
		{"unknown placeholder in the URL", target.HTTPSpec{URL: "http://x/t/{{tenat}}", ID: "/id"}, []string{"target.url", "{{tenat}}", "{{tenant}}"}},
		{"empty placeholder in the URL", target.HTTPSpec{URL: "http://x/t/{{}}", ID: "/id"}, []string{"target.url", "{{}}"}},
		{"unknown placeholder in a header", target.HTTPSpec{URL: "http://x/t", ID: "/id", Headers: map[string]string{"Idempotency-Key": "{{idem_key}}"}},
			[]string{"target.headers.Idempotency-Key", "{{idem_key}}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := target.NewHTTP(tt.spec, nil)
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

	tgt, err := target.NewHTTP(target.HTTPSpec{
		URL:     srv.URL + "/tickets",
		Headers: map[string]string{"Idempotency-Key": "{{key}}", "X-Tenant": "{{tenant}}"},
		ID:      target.IDFromLocation,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := tgt.Do(context.Background(), target.Request{Tenant: "run1-A", Key: "run1-k1", Body: []byte(`{"subject":"Printer offline"}`)})
	fmt.Println(resp.Status, resp.ID, err)
	// Output: 201 1042 <nil>
}

// net/http would silently resend a request carrying an Idempotency-Key
// on a dead keep-alive connection; the target must never let it.
func TestHTTPNeverResends(t *testing.T) {
	var seen *http.Request
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		seen = r
		return &http.Response{StatusCode: 201, Body: io.NopCloser(strings.NewReader(`{"id": 1}`)), Header: http.Header{}}, nil
	})}
	h, err := target.NewHTTP(target.HTTPSpec{URL: "http://127.0.0.1:1/x", Headers: map[string]string{"Idempotency-Key": "{{key}}"}, ID: "/id"}, client)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Do(t.Context(), target.Request{Key: "k", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if seen == nil || seen.GetBody != nil {
		t.Fatal("the request can be rewound and resent by net/http (GetBody is set)")
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
