package main

import (
	"errors"
	"io"
	"strings"
	"testing"
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
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://env"}},
		{name: "flag beats DATABASE_URL",
			args: []string{"-database-url", "postgres://flag"},
			env:  map[string]string{"DATABASE_URL": "postgres://env"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://flag"}},
		{name: "PORT without -listen",
			args: []string{"-database-url", "postgres://flag", "-bug", "global-keys"},
			env:  map[string]string{"PORT": "9123"},
			want: config{listen: "127.0.0.1:9123", databaseURL: "postgres://flag", bug: "global-keys"}},
		{name: "-listen beats PORT",
			args: []string{"-database-url", "postgres://flag", "-listen", "127.0.0.1:7000"},
			env:  map[string]string{"PORT": "9123"},
			want: config{listen: "127.0.0.1:7000", databaseURL: "postgres://flag"}},
		{name: "-listen given as the default still beats PORT",
			args: []string{"-database-url", "postgres://flag", "-listen", "127.0.0.1:8080"},
			env:  map[string]string{"PORT": "9123"},
			want: config{listen: "127.0.0.1:8080", databaseURL: "postgres://flag"}},
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
