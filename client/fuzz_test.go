package client_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/idemstress/idemstress/client"
)

// FuzzParseResponse: no answer, however broken its status line, headers,
// Location or body, makes reading it or finding its ID panic, and the ID
// found is part of what the service sent. (An ID is read whatever the
// status: the contract's answer matchers say which answers carry one.)
func FuzzParseResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 201 Created\r\nLocation: /tickets/7\r\nContent-Length: 16\r\n\r\n{\"ticket_id\": 7}"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nLocation: http://x/a/b/?q=1#f\r\n\r\n{\"ticket_id\": \"a\\u0000b\"}"))
	f.Add([]byte("HTTP/1.1 409 Conflict\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 201 Created\r\nLocation: %zz\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 201 Created\r\nLocation: /\r\n\r\n{\"ticket_id\": {\"nested\": [1, 2]}}"))
	f.Add([]byte("garbage"))
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/tickets", nil)
	if err != nil {
		f.Fatal(err)
	}
	var targets []*client.HTTP
	for _, id := range []string{"/ticket_id", client.IDFromLocation, "/data/0/id"} {
		h, err := client.NewHTTP(client.HTTPSpec{URL: "http://127.0.0.1/tickets", ID: id}, nil)
		if err != nil {
			f.Fatal(err)
		}
		targets = append(targets, h)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), req)
		if err != nil {
			return
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		for _, h := range targets {
			got := h.ParseResponse(resp, body)
			if got.Status != resp.StatusCode {
				t.Fatalf("status %d, want %d", got.Status, resp.StatusCode)
			}
			if len(got.ID) > len(raw) {
				t.Fatalf("an ID of %d bytes from an answer of %d", len(got.ID), len(raw))
			}
		}
	})
}
