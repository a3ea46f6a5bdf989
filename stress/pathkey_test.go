package stress_test

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// Issue 16: a key carried in the URL's path (/tickets/{{key}}) has no
// keyless form. A keyless call went out as /tickets/, which a router
// answers 404, and the correct service was blamed (IDEM-008). No keyless
// call is made then; coverage says the keyless transition never happened,
// and a note says why.
func TestKeyInPathMakesNoKeylessCall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sample service")
	}
	// The sample behind a router that takes the key from the path.
	route := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seg, ok := strings.CutPrefix(r.URL.EscapedPath(), "/tickets/")
			key, err := url.PathUnescape(seg)
			if !ok || seg == "" || strings.Contains(seg, "/") || err != nil {
				http.NotFound(w, r)
				return
			}
			r.Header.Set("Idempotency-Key", key)
			r.URL.Path, r.URL.RawPath = "/tickets", ""
			h.ServeHTTP(w, r)
		})
	}
	svc, err := sample.StartWrapped(t.Context(), pgtest.NewDatabase(t, cluster), sample.Correct, ticketsvc.LayoutKeys, route)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	cfg, err := svc.Config(30, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.KeyRequired() {
		t.Fatal("the sample's contract must require the key, or this test shows nothing")
	}
	cfg.Target = nil // built from cfg.HTTP, changed here
	cfg.HTTP.URL += "/{{key}}"
	cfg.HTTP.Headers = maps.Clone(cfg.HTTP.Headers)
	delete(cfg.HTTP.Headers, "Idempotency-Key")
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Pass {
		for _, f := range res.Failures {
			t.Logf("%s: %s", f.Check, f.Plan)
		}
		t.Fatalf("verdict %s (%v); want pass", res.Verdict, res.Err)
	}
	if n := res.Coverage[coverage.Keyless]; n != 0 {
		t.Errorf("%d keyless call(s) counted", n)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "target.url's path") }) {
		t.Errorf("no note says why no call went without its key: %q", res.Notes)
	}
}
