// Package pgtest gives a test binary one throwaway PostgreSQL cluster and
// each test a database of its own.
//
// A test gets the cluster through Cluster or NewDatabase, which start it on
// first use, never through the variable Main is given: on a machine without
// PostgreSQL, `go test -short` runs the tests without a cluster, and those
// two skip the tests that need one. Without -short a missing PostgreSQL fails the run, so
// that CI never skips them silently.
package pgtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/pgtemp"
)

// absent is why Main runs the tests without a cluster; nil while
// PostgreSQL is there, or when Main is not this binary's TestMain.
var absent error

// The binary's cluster, started by the first test that asks for it.
var (
	mainCalled bool // Main is the TestMain: shared may start a cluster
	sharedOnce sync.Once
	sharedC    *pgtemp.Cluster
	sharedErr  error
)

// Main is a TestMain body: it runs the tests, closes the cluster if a test
// started one, fails the binary if a goroutine was left behind, and exits.
//
// The cluster starts when a test first asks for it (Cluster, NewDatabase,
// or Shared for an example), not before the tests: a binary whose selected
// tests need none (-run, -short) spends no initdb on it. Main leaves
// *cluster nil; the tests pass that nil to Cluster and NewDatabase, which
// then use the binary's cluster. (A variable filled while parallel tests
// read it would be a data race.)
//
// If PostgreSQL is not installed and the run is -short, the tests run
// without a cluster, and Main says so in one line: Cluster and NewDatabase
// then skip the tests that need it. An example cannot skip, so examples
// names the package's examples that need the cluster; they are left out of
// such a run (added to -test.skip).
func Main(m *testing.M, cluster **pgtemp.Cluster, examples ...string) {
	os.Exit(run(m, cluster, examples))
}

func run(m *testing.M, cluster **pgtemp.Cluster, examples []string) int {
	flag.Parse() // for testing.Short; m.Run parses only if nobody did
	*cluster = nil
	mainCalled = true
	if fuzzing() {
		// A fuzz target is pure, and each fuzz worker is a process of its
		// own running TestMain: a cluster each would cost seconds a worker.
		absent = errors.New("fuzzing: no cluster")
		return m.Run()
	}
	if _, err := pgtemp.FindBinDir(); skippable(err) {
		absent = err
		if err := leaveOut(examples); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, withoutLine(err, examples))
	}
	code := m.Run()
	if err := removeBinaryDir(); err != nil {
		fmt.Fprintln(os.Stderr, "removing the tests' binary directory:", err)
		code = 1
	}
	if sharedC != nil {
		if err := sharedC.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the test cluster:", err)
			code = 1
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	return code
}

// Shared returns the binary's cluster, starting it on the first call, for
// an example, which has no testing.TB; a test uses Cluster or NewDatabase.
// Every call after a failed start returns that start's error.
func Shared() (*pgtemp.Cluster, error) {
	if !mainCalled {
		return nil, errors.New("pgtest: no test cluster: TestMain must call pgtest.Main(m, &cluster)")
	}
	if absent != nil {
		return nil, absent
	}
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		sharedC, sharedErr = pgtemp.Start(ctx, pgtemp.Options{})
		if sharedErr != nil {
			sharedErr = fmt.Errorf("these tests need a local PostgreSQL installation: %w", sharedErr)
		}
	})
	return sharedC, sharedErr
}

// MainWithoutCluster is a TestMain body for a package whose tests start
// clusters of their own (with Require on the error): it runs the tests,
// fails the binary if a goroutine was left behind, and exits. When
// PostgreSQL is not installed and the run is -short, it says so in one line
// and leaves out examples, as Main does.
func MainWithoutCluster(m *testing.M, examples ...string) {
	flag.Parse()
	if _, err := pgtemp.FindBinDir(); skippable(err) {
		if err := leaveOut(examples); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, withoutLine(err, examples))
	}
	goleak.VerifyTestMain(m)
}

// fuzzing reports whether the binary runs a fuzz target (go test -fuzz),
// as the coordinator or as one of its workers.
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// skippable reports whether err, from starting a cluster or finding
// PostgreSQL, lets the tests that need it skip: PostgreSQL is not installed
// and the run is -short. Anything else wrong with PostgreSQL fails them.
func skippable(err error) bool {
	return err != nil && testing.Short() && errors.Is(err, pgtemp.ErrNoBinaries)
}

// withoutLine is the one line a run without PostgreSQL prints.
func withoutLine(err error, examples []string) string {
	line := "pgtest: -short without PostgreSQL: tests that need it are skipped"
	if len(examples) > 0 {
		line += " and examples " + strings.Join(examples, ", ") + " left out"
	}
	return line + " (without -short they fail): " + err.Error()
}

// leaveOut adds examples to -test.skip, keeping what the command line
// skips.
func leaveOut(examples []string) error {
	if len(examples) == 0 {
		return nil
	}
	names := make([]string, len(examples))
	for i, e := range examples {
		names[i] = regexp.QuoteMeta(e)
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	f := flag.Lookup("test.skip")
	if f == nil {
		return errors.New("no -test.skip flag to leave out examples " + strings.Join(examples, ", "))
	}
	if old := f.Value.String(); old != "" {
		// A top-level | separates alternatives, each split at / on its own.
		pattern = old + "|" + pattern
	}
	return f.Value.Set(pattern)
}

// Cluster returns c if it is a cluster, or else the binary's cluster
// (Shared), starting it if no test has. In a -short run without
// PostgreSQL it skips tb; if the cluster cannot start, or Main is not the
// TestMain, it fails tb.
func Cluster(tb testing.TB, c *pgtemp.Cluster) *pgtemp.Cluster {
	tb.Helper()
	if c != nil {
		return c
	}
	c, err := Shared()
	if err == nil {
		return c
	}
	if absent != nil {
		tb.Skip("needs PostgreSQL, which is not installed (-short run)")
	}
	tb.Fatal(err)
	return nil
}

// Require ends tb if err, from starting a cluster of the test's own or from
// pgtemp.FindBinDir, is not nil: it skips tb if PostgreSQL is not installed
// and the run is -short, and fails it otherwise.
func Require(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if skippable(err) {
		tb.Skip("needs PostgreSQL, which is not installed (-short run):", err)
	}
	tb.Fatal(err)
}

var seq atomic.Int64

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// NewDatabase creates an empty database named after the test on c, or on
// the binary's cluster if c is nil (see Cluster), and returns its URL. Like Cluster, it skips tb in a -short run without
// PostgreSQL.
func NewDatabase(tb testing.TB, c *pgtemp.Cluster) string {
	tb.Helper()
	c = Cluster(tb, c)
	name := fmt.Sprintf("t%d_%s", seq.Add(1), unsafeChars.ReplaceAllString(strings.ToLower(tb.Name()), "_"))
	if len(name) > 63 {
		name = name[:63]
	}
	url, err := c.CreateDatabase(context.Background(), name)
	if err != nil {
		tb.Fatal(err)
	}
	return url
}

// RaiseParallel sets -test.parallel to n unless the command line set it:
// for a binary whose tests mostly wait (restarts, recovery times, delivery
// windows, a service's answers), each on a database and a service of its
// own, so that more of them overlap than go test's default (GOMAXPROCS,
// made for tests that compute) lets. Call it before Main.
func RaiseParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if set {
		return
	}
	if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: raising -test.parallel:", err)
		os.Exit(2)
	}
}
