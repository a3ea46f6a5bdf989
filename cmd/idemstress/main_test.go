package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/stresstest"
	"github.com/idemstress/idemstress/stress"
)

var update = flag.Bool("update", false, "rewrite golden files")

var cluster *pgtemp.Cluster

func TestMain(m *testing.M) {
	// The demo serves its sample as processes of os.Executable(), its own
	// binary: here, this test binary, which then acts as idemstress. So do
	// the tests that start the sample or the command as a process
	// (sampleCommand, idemstressBinary): go test starts a test binary with
	// -test. flags, a process of idemstress with its command.
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		main()
	}
	// A contract whose service idemstress starts gets a throwaway
	// database unless DATABASE_URL names one: the tests that show that
	// run in parallel, so the shell's DATABASE_URL goes once, here, not
	// test by test (t.Setenv cannot be used in a parallel test).
	os.Unsetenv("DATABASE_URL")
	// Most tests wait on a service, on restarts or on a cluster of their
	// own: stresstest.Main runs more of them at once than go test would.
	stresstest.Main(m, &cluster)
}

// invoke runs the CLI in-process and returns its exit code and output.
// A run's case files go to a temporary directory unless the test says
// where (a later --cases wins), not into the source tree.
func invoke(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	if len(args) > 0 && (args[0] == "run" || args[0] == "stress") {
		args = append([]string{args[0], "--cases", t.TempDir()}, args[1:]...)
	}
	var stdout, stderr bytes.Buffer
	code := dispatch(t.Context(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestHelp(t *testing.T) {
	code, stdout, _ := invoke(t, "help")
	if code != exitPass {
		t.Errorf("exit %d", code)
	}
	golden(t, "help/stdout", stdout)
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "usage: idemstress"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"run without config", []string{"run"}, "want --config FILE"},
		{"run with a bad flag", []string{"run", "--plans=many"}, "invalid value"},
		{"demo with an argument", []string{"demo", "extra"}, `unexpected argument "extra"`},
		{"demo with an unknown layout", []string{"demo", "--schema", "xml"}, `--schema "xml"; want keys, tagged or all`},
		{"doctor without config", []string{"doctor"}, "want --config FILE"},
		{"sample-service of no sample", []string{"sample-service", "nosuch"}, `no sample "nosuch"`},
		{"demo with a bad database URL", []string{"demo", "--database-url", "mysql://x"}, "bad database URL"},
		{"replay with a negative duration", []string{"replay", "case.json", "--config", "c.yaml", "--duration", "-1s"}, "--duration -1s: want a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := invoke(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
	code, _, stderr := invoke(t, "frobnicate")
	if code != exitUsage {
		t.Fatal(code)
	}
	golden(t, "unknown/stderr", stderr)
}

func TestExitFor(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("x: %w", stress.ErrBadURL), exitUsage},
		{fmt.Errorf("x: %w", contract.ErrContract), exitUsage},
		{fmt.Errorf("x: %w", observe.ErrSchema), exitUsage},
		{fmt.Errorf("x: %w", pgtemp.ErrNoBinaries), exitUsage},
		{context.Canceled, exitInconclusive},
		{errors.New("connection refused"), exitInconclusive},
	} {
		if got := exitFor(tc.err); got != tc.want {
			t.Errorf("exitFor(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// sampleCommand is the command that serves the sample service, for a
// test in which idemstress starts it: this test binary's sample-service
// (TestMain), as YAML flow items to put first in a contract's
// process.command, before the service's flags. Its database is a
// throwaway one unless the test gives one (TestMain unsets DATABASE_URL).
// It skips under -short.
func sampleCommand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the sample service as processes")
	}
	return fmt.Sprintf("%q, %q", self(t), sampleServiceCmd)
}

// idemstressBinary is the command as a process, for the tests that send it
// real signals: this test binary, which runs idemstress's main when its
// first argument is a command (TestMain).
func idemstressBinary(t *testing.T) string {
	t.Helper()
	return self(t)
}

// self is this test binary's path.
func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
