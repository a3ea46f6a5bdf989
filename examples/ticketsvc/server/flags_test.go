package server

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    config
		wantErr string // substring of a usage error; "" for success
	}{
		{name: "defaults from DATABASE_URL",
			env:  map[string]string{"DATABASE_URL": "postgres://env"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://env", schema: ticketsvc.LayoutKeys}},
		{name: "flag beats DATABASE_URL",
			args: []string{"-database-url", "postgres://flag"},
			env:  map[string]string{"DATABASE_URL": "postgres://env"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://flag", schema: ticketsvc.LayoutKeys}},
		{name: "PORT without -listen",
			args: []string{"-database-url", "postgres://flag", "-bug", "global-keys"},
			env:  map[string]string{"PORT": "9123"},
			want: config{listen: "127.0.0.1:9123", databaseURL: "postgres://flag", bug: "global-keys", schema: ticketsvc.LayoutKeys}},
		{name: "-listen beats PORT",
			args: []string{"-database-url", "postgres://flag", "-listen", "127.0.0.1:7000"},
			env:  map[string]string{"PORT": "9123"},
			want: config{listen: "127.0.0.1:7000", databaseURL: "postgres://flag", schema: ticketsvc.LayoutKeys}},
		{name: "-listen given as the default still beats PORT",
			args: []string{"-database-url", "postgres://flag", "-listen", "127.0.0.1:8080"},
			env:  map[string]string{"PORT": "9123"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://flag", schema: ticketsvc.LayoutKeys}},
		{name: "-schema tagged",
			args: []string{"-database-url", "postgres://flag", "-schema", "tagged"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://flag", schema: ticketsvc.LayoutTagged}},
		{name: "-schema keys",
			args: []string{"-database-url", "postgres://flag", "-schema", "keys", "-bug", "raw-body-fingerprint"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://flag", bug: "raw-body-fingerprint", schema: ticketsvc.LayoutKeys}},
		{name: "several bugs",
			args: []string{"-database-url", "postgres://flag", "-bug", "no-payload-check,global-keys"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://flag", bug: "no-payload-check,global-keys", schema: ticketsvc.LayoutKeys}},
		{name: "no database", wantErr: "-database-url"},
		{name: "stray argument", args: []string{"-database-url", "x", "serve"}, wantErr: "unexpected arguments"},
		{name: "unknown flag", args: []string{"-port", "1"}, wantErr: "-port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			got, err := parseFlags(tt.args, getenv, io.Discard)
			if tt.wantErr != "" {
				if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got config %+v, error %v; want a usage error mentioning %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// An unknown bug is a usage error naming the valid ones, found before any
// connection is made (nothing listens on port 1).
func TestRunRejectsUnknownBug(t *testing.T) {
	var stderr strings.Builder
	err := run(t.Context(), []string{"-database-url", "postgres://127.0.0.1:1/x", "-bug", "nope"},
		func(string) string { return "" }, &stderr)
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "outbox-on-retry") {
		t.Fatalf("got %v; want a usage error listing the bug modes", err)
	}
}

// An unknown -schema is a usage error naming the valid layouts, found before
// any connection is made.
func TestRunRejectsUnknownSchema(t *testing.T) {
	var stderr strings.Builder
	err := run(t.Context(), []string{"-database-url", "postgres://127.0.0.1:1/x", "-schema", "nope"},
		func(string) string { return "" }, &stderr)
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "keys") ||
		!strings.Contains(err.Error(), "tagged") || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("got %v; want a usage error listing the layouts", err)
	}
}

// Started with one -schema on a database that holds the other layout, the
// command stops before listening, naming both.
func TestRunRefusesAnotherLayout(t *testing.T) {
	for _, tt := range []struct{ db, flag ticketsvc.Layout }{
		{ticketsvc.LayoutKeys, ticketsvc.LayoutTagged},
		{ticketsvc.LayoutTagged, ticketsvc.LayoutKeys},
	} {
		t.Run(string(tt.flag)+"_on_"+string(tt.db), func(t *testing.T) {
			dbURL := pgtest.NewDatabase(t, cluster)
			migrate(t, dbURL, tt.db)
			var stderr strings.Builder
			err := run(t.Context(), []string{"-database-url", dbURL, "-listen", "127.0.0.1:0", "-schema", string(tt.flag)},
				func(string) string { return "" }, &stderr)
			if err == nil || errors.As(err, new(usageError)) ||
				!strings.Contains(err.Error(), `"`+string(tt.db)+`"`) || !strings.Contains(err.Error(), `"`+string(tt.flag)+`"`) {
				t.Fatalf("got %v; want a failure naming both layouts", err)
			}
			if strings.Contains(stderr.String(), "listening on") {
				t.Fatalf("listened on a database of the other layout:\n%s", stderr.String())
			}
		})
	}
}

func migrate(t *testing.T, dbURL string, layout ticketsvc.Layout) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := ticketsvc.Migrate(t.Context(), pool, layout); err != nil {
		t.Fatal(err)
	}
}

// The service's pool holds every call of the largest burst at once, unless
// the URL says otherwise.
func TestPoolHoldsTheLargestBurst(t *testing.T) {
	cfg, err := poolConfig("postgres://u@127.0.0.1:5432/db")
	if err != nil {
		t.Fatal(err)
	}
	if largest := gen.DefaultWorld().MaxBurst; int(cfg.MaxConns) <= largest {
		t.Errorf("pool of %d connections for bursts of up to %d calls", cfg.MaxConns, largest)
	}
	cfg, err = poolConfig("postgres://u@127.0.0.1:5432/db?pool_max_conns=7")
	if err != nil || cfg.MaxConns != 7 {
		t.Errorf("pool_max_conns=7 in the URL: %d, %v", cfg.MaxConns, err)
	}
}

// -h says -bug takes several modes, and names every one.
func TestBugFlagHelp(t *testing.T) {
	var help strings.Builder
	if _, err := parseFlags([]string{"-h"}, func(string) string { return "" }, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, want := range append(ticketsvc.Bugs(), "joined by commas") {
		if !strings.Contains(help.String(), want) {
			t.Errorf("help does not say %q:\n%s", want, help.String())
		}
	}
}
