package calls_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/idemstress/idemstress/internal/draft/calls"
	"github.com/idemstress/idemstress/internal/draft/openapi"
)

// A call without the key leaves out the query parameter that carries it,
// as a run does: Answers' keyless call to a service that takes
// requestId in the query sends none.
func TestProbeAnswersLeavesTheQueryKeyOut(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("requestId") == "" {
			w.WriteHeader(400)
			w.Write([]byte(`{"error": "requestId"}`))
			return
		}
		w.WriteHeader(201)
		w.Write([]byte(`{"id": "t-` + r.URL.Query().Get("requestId") + `"}`))
	}))
	defer srv.Close()
	d, err := openapi.Draft(context.Background(), filepath.Join("testdata", "querykey.yaml"), "createThing", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	d.Defaults()
	if _, err := calls.Answers(context.Background(), d, srv.Client(), "t-"); err != nil {
		t.Fatal(err)
	}
	if n := len(queries); n != 4 {
		t.Fatalf("%d calls, want 4 (create, replay, changed, keyless): %q", n, queries)
	}
	if q := queries[3]; q != "view=full" {
		t.Errorf("the keyless call's query is %q, want view=full", q)
	}
	b, _ := d.Render()
	assertDraft(t, string(b), []string{"url: " + srv.URL + "/things?requestId={{key}}&view=full", "invalid: [400] # guessed: probed", "in_flight: [] # guessed: the document lists no in-progress answer"}, nil)
}

func assertDraft(t *testing.T, text string, want, unwanted []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("draft lacks %q:\n%s", w, text)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(text, u) {
			t.Errorf("draft has %q:\n%s", u, text)
		}
	}
}
