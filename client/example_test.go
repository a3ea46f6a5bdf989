package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/idemstress/idemstress/client"
)

// Three calls with the same idempotency key, released at the same instant.
func ExampleRelease() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"key":%q}`, r.Header.Get("Idempotency-Key"))
	}))
	defer srv.Close()

	var reqs []*http.Request
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/tickets", strings.NewReader(`{"subject":"printer on fire"}`))
		req.Header.Set("Idempotency-Key", "k1")
		reqs = append(reqs, req)
	}
	for _, ex := range client.Release(context.Background(), reqs, client.ReleaseOptions{}) {
		fmt.Println(ex.Resp.StatusCode, string(ex.Body))
	}
	// Output:
	// 201 {"key":"k1"}
	// 201 {"key":"k1"}
	// 201 {"key":"k1"}
}
