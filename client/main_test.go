package client_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// No test may leave a goroutine behind: not the client's keep-alive
// connections, not a handler still waiting for a call that timed out.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serve starts h on a loopback port for the length of the test.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// posts builds n POST requests to url, each with body "body-<i>".
func posts(t *testing.T, n int, url func(i int) string) []*http.Request {
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

// readAll drains and closes r; test handlers use it to read request bodies.
func readAll(r io.ReadCloser) string {
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}
