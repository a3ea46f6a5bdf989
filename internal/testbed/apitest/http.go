package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Answer is a plain HTTP answer: its status and its JSON body.
type Answer struct {
	Status int
	Body   map[string]any
	Raw    string
}

// Post sends one plain request and reads its answer.
func Post(t *testing.T, url string, header map[string]string, body string) Answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := Answer{Status: resp.StatusCode, Raw: string(raw)}
	if err := json.Unmarshal(raw, &a.Body); err != nil {
		t.Fatalf("POST %s: answer %d is not a JSON object: %q", url, resp.StatusCode, raw)
	}
	return a
}

// At is the value at a JSON pointer of the answer's body, as text ("" for
// nothing there).
func (a Answer) At(ptr string) string {
	v, _ := payloads.Pointer([]byte(a.Raw), ptr)
	return v
}

// Count is the number of rows query finds.
func Count(t *testing.T, pool *pgxpool.Pool, query string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
