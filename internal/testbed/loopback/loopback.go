// Package loopback holds the test helpers that serve and call HTTP on
// 127.0.0.1, shared by the tests of the packages that send bursts.
package loopback

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
)

// Serve starts h on a loopback port for the length of the test.
func Serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// Posts builds n POST requests to url(i), each with body "body-<i>".
func Posts(t *testing.T, n int, url func(i int) string) []*http.Request {
	t.Helper()
	reqs := make([]*http.Request, n)
	for i := range reqs {
		r, err := http.NewRequest(http.MethodPost, url(i), strings.NewReader(fmt.Sprintf("body-%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = r
	}
	return reqs
}

// ReadAll drains and closes r; test handlers use it to read request bodies.
func ReadAll(r io.ReadCloser) string {
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// Send posts call to http://addr/tickets with the extra headers, as a
// fake executor's sender does in the fault tests: an answer that never
// came is an unknown outcome, as the executor records it.
func Send(ctx context.Context, addr string, call model.Call, extra map[string]string) model.Op {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/tickets", strings.NewReader("{}"))
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	op := model.Op{Call: call}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		op.Out = model.Outcome{Kind: model.Unknown, Err: "no answer"}
		return op
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	op.Out = model.Outcome{Kind: model.OK, Status: resp.StatusCode}
	return op
}
