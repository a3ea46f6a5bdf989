package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/client"
)

// A template net/http could never send is refused when the target is made
// (the contract is loaded), naming the field, instead of every call
// failing as if the service had not answered.
func TestNewHTTPRefusesUnsendableRequests(t *testing.T) {
	key := map[string]string{"Idempotency-Key": "{{key}}"}
	for _, tc := range []struct {
		name    string
		method  string
		headers map[string]string
		want    []string
	}{
		{"method with a space", "PO ST", key, []string{"target.method", `"PO ST"`}},
		{"method with CRLF", "POST\r\n", key, []string{"target.method"}},
		{"header name with a space", "POST", map[string]string{"Idempotency Key": "{{key}}"}, []string{"target.headers", `"Idempotency Key"`, "not a header name"}},
		{"header name with a colon", "POST", map[string]string{"Idempotency-Key:": "{{key}}"}, []string{"target.headers", "not a header name"}},
		{"header value with CRLF", "POST", map[string]string{"Idempotency-Key": "{{key}}\r\nX-Evil: 1"}, []string{"target.headers.Idempotency-Key", "line break"}},
		{"fine", "PUT", map[string]string{"Idempotency-Key": "{{key}}", "X-Tenant": "t {{tenant}}"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1:1/p", Method: tc.method, Headers: tc.headers, ID: "/id"}, nil)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("NewHTTP: %v; want it accepted", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("NewHTTP accepted method %q headers %q", tc.method, tc.headers)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("NewHTTP: %v; want it to say %q", err, w)
				}
			}
		})
	}
}

// TLS that cannot work (https:// against plain HTTP, a certificate not
// trusted) says the target cannot be talked to at all, like a refused
// connection: an infrastructure failure, never a call without an answer.
func TestTLSFailuresAreUnreachable(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusCreated) })
	plain := httptest.NewServer(ok)
	t.Cleanup(plain.Close)
	untrusted := httptest.NewTLSServer(ok)
	t.Cleanup(untrusted.Close)
	for _, tc := range []struct {
		name, url, want string
	}{
		{"https against plain HTTP", strings.Replace(plain.URL, "http://", "https://", 1), "write http://"},
		{"untrusted certificate", untrusted.URL, "not trusted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgt, err := client.NewHTTP(client.HTTPSpec{URL: tc.url + "/p", Headers: map[string]string{"Idempotency-Key": "{{key}}"}, ID: "location"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tgt.CloseIdleConnections()
			_, err = tgt.Do(context.Background(), client.Request{Key: "k1", Body: []byte(`{}`)})
			if !errors.Is(err, client.ErrUnreachable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Do: %v; want ErrUnreachable saying %q", err, tc.want)
			}
		})
	}
}

// A burst reaches an https:// service too, in both sync modes, with the
// trust of the target's own client; against plain HTTP it fails as
// unreachable, like a single call.
func TestBurstOverTLS(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", "/p/7")
		w.WriteHeader(http.StatusCreated)
	})
	secure := httptest.NewTLSServer(ok)
	t.Cleanup(secure.Close)
	plain := httptest.NewServer(ok)
	t.Cleanup(plain.Close)
	spec := client.HTTPSpec{URL: secure.URL + "/p", Headers: map[string]string{"Idempotency-Key": "{{key}}"}, ID: "location"}
	tgt, err := client.NewHTTP(spec, secure.Client())
	if err != nil {
		t.Fatal(err)
	}
	reqs := []client.Request{{Key: "k1", Body: []byte(`{}`)}, {Key: "k1", Body: []byte(`{}`)}}
	for _, mode := range []client.SyncMode{client.LastByte, client.Naive} {
		for i, r := range tgt.WithSync(mode).Burst(context.Background(), reqs, nil) {
			if r.Err != nil || r.Status != http.StatusCreated || r.ID != "7" {
				t.Errorf("%s burst over TLS, call %d: %+v, %v; want 201 with ID 7", mode, i, r.Response, r.Err)
			}
		}
	}
	spec.URL = strings.Replace(plain.URL, "http://", "https://", 1) + "/p"
	tgt, err = client.NewHTTP(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range tgt.Burst(context.Background(), reqs, nil) {
		if !errors.Is(r.Err, client.ErrUnreachable) || !strings.Contains(r.Err.Error(), "write http://") {
			t.Errorf("burst with https:// against plain HTTP, call %d: %v; want ErrUnreachable saying to write http://", i, r.Err)
		}
	}
}
