package calls_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
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
	doc := oneOperation(`
        - {name: requestId, in: query, required: true, description: Safe to retry with., schema: {type: string}}
        - {name: view, in: query, required: true, schema: {type: string, enum: [full, basic]}}`, "", "")
	d, err := openapi.Draft(context.Background(), docFile(t, doc), "createThing", srv.URL)
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

// docFile writes a document to a file of the test.
func docFile(t *testing.T, doc string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
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

// A document of one operation, with the parameters, body properties and
// answers given.
func oneOperation(params, props, responses string) string {
	return `openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "https://api.example.test"}]
paths:
  /things:
    post:
      operationId: createThing
      parameters:` + cmpOr(params, " []") + `
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [title]
              properties:
                title: {type: string, example: a thing}` + props + `
      responses:
        "201":
          description: created
          content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}` + responses + "\n"
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
