package client_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/client"
)

// huge is made once: what the test server allocates counts in the
// measurement too.
var huge = strings.Repeat("a", 8<<20)

// hugeHeader answers 201 with an 8 MiB header, as a hostile or broken
// service might.
func hugeHeader(w http.ResponseWriter, r *http.Request) {
	_ = readAll(r.Body)
	w.Header()["X-Huge"] = []string{huge}
	w.Header().Set("Location", "/tickets/7")
	w.WriteHeader(http.StatusCreated)
}

// An answer whose headers pass client.MaxHeader is recorded as the
// service's answer (no answer: the headers were too large, said so), on the
// burst path as on the single-call one, and reading it costs about the
// bound, not the 8 MiB the service sent (before the bound a burst of two
// such answers allocated tens of MiB).
func TestHugeHeaderIsBounded(t *testing.T) {
	srv := serve(t, hugeHeader)
	h, err := client.NewHTTP(client.HTTPSpec{URL: srv.URL + "/tickets", ID: client.IDFromLocation}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.CloseIdleConnections()
	req := client.Request{Tenant: "A", Key: "k1", Body: []byte(`{}`)}
	for _, mode := range modes {
		t.Run("burst "+string(mode), func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res := h.WithSync(mode).Burst(t.Context(), []client.Request{req, req}, nil)
			runtime.ReadMemStats(&after)
			for i, r := range res {
				if r.Err == nil || !strings.Contains(r.Err.Error(), "headers larger than 1 MiB") {
					t.Errorf("call %d: err %v, status %d; want the answer refused for its headers", i, r.Err, r.Status)
				}
			}
			// A sanity bound, not a measurement: 2 answers read up to 1 MiB
			// of headers each (a few MiB of garbage apiece as the line
			// grows), and the test server's own allocations; 111 MiB
			// without the bound.
			if got := after.TotalAlloc - before.TotalAlloc; got > 24<<20 {
				t.Errorf("reading two 8 MiB headers allocated %d MiB", got>>20)
			}
		})
	}
	t.Run("single call", func(t *testing.T) {
		_, err := h.Do(t.Context(), req)
		if err == nil || !strings.Contains(err.Error(), "exceeded") {
			t.Errorf("err %v; want the answer refused for its headers", err)
		}
	})
}
