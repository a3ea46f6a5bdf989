package paysvc_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

// Main serves in-process: it says where it listens, creates its schema,
// takes the flags' mode, and returns nil once its context is cancelled.
func TestMainServes(t *testing.T) {
	dbURL := pgtest.NewDatabase(t, cluster)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan error, 1)
	environ := map[string]string{"DATABASE_URL": dbURL, "PORT": "1"} // -listen wins over PORT
	go func() {
		err := paysvc.Main(ctx, []string{"-listen", "127.0.0.1:0", "-key-header", "X-Request-Id", "-bug", "ledger-on-retry"},
			func(k string) string { return environ[k] }, w)
		w.CloseWithError(err)
		done <- err
	}()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				addr <- a
			}
		}
		close(addr)
	}()
	var a string
	select {
	case a = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}
	if !strings.HasPrefix(a, "127.0.0.1:") || a == "127.0.0.1:1" {
		t.Fatalf("listening on %q, want a port of 127.0.0.1 chosen for -listen 127.0.0.1:0", a)
	}
	e := &env{t: t, url: "http://" + a, client: &http.Client{Timeout: 10 * time.Second}, pool: connectTo(t, dbURL),
		opts: paysvc.Options{KeyHeader: "X-Request-Id"}}
	defer e.client.CloseIdleConnections()
	first := e.mustPay("m1", "k1", 1250, "")
	if again := e.mustPay("m1", "k1", 1250, ""); first.status != http.StatusOK || again.body != first.body {
		t.Fatalf("answered %d %s then %s, want one payment replayed", first.status, first.body, again.body)
	}
	e.wantRows("m1", "k1", 1, 2) // the -bug flag's mistake
	e.client.CloseIdleConnections()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Main after cancel: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Main still serving 15s after cancel")
	}
}

// Mistakes in the arguments or environment are UsageErrors, found before
// anything is served.
func TestMainUsageErrors(t *testing.T) {
	dbURL := "postgres://127.0.0.1:1/none"
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no database", nil, nil, "no database"},
		{"unknown flag", []string{"-database-url", dbURL, "-nope"}, nil, "-nope"},
		{"argument", []string{"-database-url", dbURL, "extra"}, nil, "unexpected arguments"},
		{"unknown bug", []string{"-database-url", dbURL, "-bug", "replay-changed,nope"}, nil, "nope"},
		{"in-use-after", []string{"-database-url", dbURL, "-in-use-after", "0s"}, nil, "must be positive"},
		{"bad URL", []string{"-database-url", "postgres://%%"}, nil, "-database-url"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			err := paysvc.Main(t.Context(), tt.args, func(k string) string { return tt.env[k] }, &stderr)
			if !errors.As(err, new(paysvc.UsageError)) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Main(%q) = %v, want a UsageError naming %q", tt.args, err, tt.want)
			}
		})
	}
	if err := paysvc.Main(t.Context(), []string{"-h"}, func(string) string { return "" }, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Main(-h) = %v, want flag.ErrHelp", err)
	}
}
