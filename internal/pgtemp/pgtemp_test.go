//go:build unix

package pgtemp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

func TestMain(m *testing.M) {
	pgtest.MainWithoutCluster(m, "Example")
}

// TestLifecycle starts a cluster, uses it, closes it from several
// goroutines at once (a deferred Close racing a signal handler's), and
// checks that nothing of it is left: process, directory, port, goroutines.
// One cluster serves every check of a running one: a start costs seconds.
func TestLifecycle(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	var log syncBuffer

	began := time.Now()
	c, err := pgtemp.Start(ctx, pgtemp.Options{Log: &log})
	pgtest.Require(t, err)
	t.Logf("time to ready: %v (port %d, dir %s)", time.Since(began).Round(time.Millisecond), c.Port(), c.Dir())
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()

	wantBase := pgtemp.TempBase()
	if wantBase == "" {
		wantBase = os.TempDir()
	}
	if got := filepath.Dir(c.Dir()); got != wantBase {
		t.Errorf("cluster dir %s is in %s, want %s (TMPDIR=%q)", c.Dir(), got, wantBase, os.Getenv("TMPDIR"))
	}

	wantURL := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port())
	if c.URL() != wantURL {
		t.Errorf("URL() = %q, want %q", c.URL(), wantURL)
	}
	if got := queryString(t, c.URL(), "select 1::text"); got != "1" {
		t.Errorf("select 1 = %q", got)
	}
	for _, setting := range []string{"fsync", "synchronous_commit", "full_page_writes"} {
		if got := queryString(t, c.URL(), "show "+setting); got != "off" {
			t.Errorf("%s = %q, want off", setting, got)
		}
	}
	if got := queryString(t, c.URL(), "show max_connections"); got != "400" {
		t.Errorf("max_connections = %q, want 400", got)
	}
	if !strings.Contains(log.String(), "database system is ready to accept connections") {
		t.Errorf("Options.Log did not receive the server's ready line; got:\n%s", log.String())
	}

	dbURL, err := c.CreateDatabase(ctx, "target_1")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(wantURL, "/postgres?", "/target_1?", 1); dbURL != want {
		t.Errorf("CreateDatabase URL = %q, want %q", dbURL, want)
	}
	if got := queryString(t, dbURL, "select current_database()::text"); got != "target_1" {
		t.Errorf("current_database() = %q, want target_1", got)
	}
	if _, err := c.CreateDatabase(ctx, "target_1"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("CreateDatabase of an existing name: err = %v, want 'already exists'", err)
	}

	// CreateDatabase keeps its connection; one the server ended while it
	// sat idle is replaced, not reported.
	if got := queryString(t, c.URL(), `select count(pg_terminate_backend(pid))::text from pg_stat_activity
		where datname = 'postgres' and backend_type = 'client backend' and pid <> pg_backend_pid()`); got != "1" {
		t.Errorf("sessions of CreateDatabase on the postgres database = %s, want its one kept connection", got)
	}
	if _, err := c.CreateDatabase(ctx, "after_terminate"); err != nil {
		t.Errorf("CreateDatabase after its connection was terminated: %v", err)
	}
	checkBadNames(t, c)

	// A connection still open at Close must not delay the shutdown.
	idle, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close(ctx)

	pid, dir, port := c.PID(), c.Dir(), c.Port()
	stopBegan := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = c.Close() })
	}
	wg.Wait()
	closed = true
	for i, err := range errs {
		if err != nil {
			t.Errorf("concurrent Close #%d: %v", i, err)
		}
	}
	t.Logf("time to close: %v", time.Since(stopBegan).Round(time.Millisecond))

	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("postmaster pid %d after Close: kill(0) = %v, want ESRCH", pid, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s after Close: stat err = %v, want not exist", dir, err)
	}
	if conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
		conn.Close()
		t.Errorf("port %d still accepts connections after Close", port)
	}
	if procs := pgtest.ProcessesUsing(dir); len(procs) > 0 {
		t.Errorf("processes still using %s after Close:\n%s", dir, strings.Join(procs, "\n"))
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.CreateDatabase(ctx, "after_close"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("CreateDatabase after Close: err = %v, want one saying the cluster is closed", err)
	}
}

// checkBadNames checks that CreateDatabase refuses names PostgreSQL
// would quote or cut, and takes one of the longest allowed length.
func checkBadNames(t *testing.T, c *pgtemp.Cluster) {
	t.Helper()
	for _, name := range []string{
		"",
		"Upper",
		"has-dash",
		"has space",
		`quote"d`,
		"x; drop database postgres",
		strings.Repeat("a", 64),
	} {
		_, err := c.CreateDatabase(context.Background(), name)
		if err == nil || !strings.Contains(err.Error(), "[a-z0-9_]") {
			t.Errorf("CreateDatabase(%q): err = %v, want one naming the allowed characters", name, err)
		}
	}
	if _, err := c.CreateDatabase(context.Background(), strings.Repeat("a", 63)); err != nil {
		t.Errorf("CreateDatabase of a 63-byte name: %v", err)
	}
}

// TestStartCancelled cancels Start at each stage and checks that it fails
// with the context's error and leaves no process and no directory behind.
func TestStartCancelled(t *testing.T) {
	for _, tc := range []struct {
		name string
		// cancelOn is output after which to cancel; "" cancels before Start.
		cancelOn string
	}{
		{name: "before start"},
		// initdb prints this line once bootstrap is done and the
		// post-bootstrap single-user backend, its own child, is running.
		{name: "during initdb", cancelOn: "running bootstrap script"},
		{name: "during server startup", cancelOn: "starting PostgreSQL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cancelOn != "" {
				_, err := pgtemp.FindBinDir()
				pgtest.Require(t, err)
			}
			tmp := isolatedTempDir(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := &cancelOn{marker: tc.cancelOn, cancel: cancel}
			if tc.cancelOn == "" {
				cancel()
			}

			c, err := pgtemp.Start(ctx, pgtemp.Options{Log: log})
			if err == nil {
				c.Close()
				t.Fatalf("Start succeeded although ctx was cancelled on %q; output:\n%s", tc.cancelOn, log)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Start: err = %v, want one wrapping context.Canceled", err)
			}
			if tc.cancelOn != "" && !log.fired() {
				t.Errorf("marker %q never appeared in the output, so the stage was not tested; output:\n%s", tc.cancelOn, log)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
				t.Errorf("Start left %d entries in TMPDIR %s, first %s", len(entries), tmp, entries[0].Name())
			}
			if procs := pgtest.WaitNoProcessesUsing(tmp, time.Second); len(procs) > 0 {
				t.Errorf("Start left processes behind:\n%s", strings.Join(procs, "\n"))
			}
		})
	}
}

func TestStartWithoutBinaries(t *testing.T) {
	empty := t.TempDir()
	tmp := isolatedTempDir(t)
	_, err := pgtemp.Start(context.Background(), pgtemp.Options{BinDir: empty})
	if !errors.Is(err, pgtemp.ErrNoBinaries) {
		t.Fatalf("Start with BinDir %s: err = %v, want ErrNoBinaries", empty, err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("Start left %d entries in TMPDIR %s", len(entries), tmp)
	}
}

// TestStartUnreachableTempDir: as root the server runs as the postgres OS
// user, which cannot enter a root-only TMPDIR; the error must say so.
func TestStartUnreachableTempDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the cluster to another OS user")
	}
	_, err := pgtemp.FindBinDir()
	pgtest.Require(t, err)
	tmp := t.TempDir() // 0700 root, and so is its parent
	t.Setenv("TMPDIR", tmp)
	_, err = pgtemp.Start(context.Background(), pgtemp.Options{})
	if err == nil || !strings.Contains(err.Error(), "check TMPDIR") {
		t.Errorf("Start with TMPDIR %s: err = %v, want a hint to check TMPDIR", tmp, err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("Start left %d entries in TMPDIR %s", len(entries), tmp)
	}
}

func TestFindBinDir(t *testing.T) {
	// Without PostgreSQL the cases that find it skip (-short) or fail; the
	// error cases run either way.
	found, foundErr := pgtemp.FindBinDir()
	for _, name := range []string{"initdb", "postgres"} {
		if foundErr != nil {
			break
		}
		if _, err := os.Stat(filepath.Join(found, name)); err != nil {
			t.Errorf("FindBinDir() = %s, which has no %s: %v", found, name, err)
		}
	}

	empty := t.TempDir()
	for _, tc := range []struct {
		name    string
		env     string
		wantDir string
		wantErr []string // substrings of an error that wraps ErrNoBinaries
	}{
		{name: "unset searches", env: "", wantDir: found},
		{name: "valid override", env: found, wantDir: found},
		{name: "empty dir", env: empty, wantErr: []string{"postgresql", "--database-url", "DATABASE_URL", empty, "no initdb, no postgres"}},
		{name: "missing dir", env: "/nonexistent/bin", wantErr: []string{"postgresql", "--database-url", "/nonexistent/bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(pgtemp.BinDirEnv, tc.env)
			dir, err := pgtemp.FindBinDir()
			if tc.wantErr == nil {
				pgtest.Require(t, foundErr)
				if err != nil || dir != tc.wantDir {
					t.Errorf("FindBinDir() = %q, %v; want %q", dir, err, tc.wantDir)
				}
				return
			}
			if !errors.Is(err, pgtemp.ErrNoBinaries) {
				t.Fatalf("FindBinDir() = %q, %v; want an error wrapping ErrNoBinaries", dir, err)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func queryString(t *testing.T, url, sql string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	defer conn.Close(ctx)
	var s string
	if err := conn.QueryRow(ctx, sql).Scan(&s); err != nil {
		t.Fatalf("%s on %s: %v", sql, url, err)
	}
	return s
}

// isolatedTempDir points TMPDIR at a fresh directory, so that what Start
// leaves behind can be told apart from other clusters on the machine. It
// lives in the system temp dir, and is world-searchable, because as root
// the server runs as the postgres OS user, which must reach it.
func isolatedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pgtemp-test-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	return dir
}

// syncBuffer is a bytes.Buffer safe for the server's output goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// cancelOn records output and cancels once marker appears in it.
type cancelOn struct {
	syncBuffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if w.fired() {
		w.cancel()
	}
	return n, err
}

func (w *cancelOn) fired() bool {
	return w.marker != "" && strings.Contains(w.String(), w.marker)
}
