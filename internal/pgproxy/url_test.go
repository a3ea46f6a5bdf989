package pgproxy_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/pgproxy"
)

func TestURL(t *testing.T) {
	// URL needs no server: nothing connects.
	p, err := pgproxy.Start(pgproxy.Options{Server: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	addr := p.Addr()
	for _, c := range []struct{ base, want, err string }{
		{"postgres://u:p%40ss@db.example:5433/app?sslmode=disable&application_name=x",
			"postgres://u:p%40ss@" + addr + "/app?sslmode=disable&application_name=x", ""},
		{"postgresql://u@localhost/app", "postgresql://u@" + addr + "/app", ""},
		{"postgres://u@h/app?sslmode=prefer", "postgres://u@" + addr + "/app?sslmode=prefer", ""},
		{"postgres://u@h/app?sslmode=require", "", "sslmode=require"},
		{"postgres://u@h/app?host=/tmp", "", "host or port in parameters"},
		{"mysql://u@h/app", "", `scheme "mysql"`},
	} {
		got, err := p.URL(c.base)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("URL(%s): %q, %v; want an error saying %s", c.base, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("URL(%s) = %q, %v; want %q", c.base, got, err, c.want)
		}
	}
}
