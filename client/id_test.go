package client_test

import (
	"net/http"
	"testing"

	"github.com/idemstress/idemstress/client"
)

// An ID answered as the number 4480.0 is the row's 4480, not another ID
// (IDEM-003); answered as the string "4480.0" it stays what it says.
func TestNumberIDsAreIntegers(t *testing.T) {
	h, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1/tickets", ID: "/id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{`{"id": 4480.0}`: "4480", `{"id": 4480}`: "4480", `{"id": "4480.0"}`: "4480.0"} {
		if got := h.ParseResponse(&http.Response{StatusCode: 201}, []byte(body)).ID; got != want {
			t.Errorf("%s: ID %q, want %q", body, got, want)
		}
	}
}
