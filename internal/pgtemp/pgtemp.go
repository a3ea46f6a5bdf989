// Package pgtemp runs a throwaway PostgreSQL cluster: a fresh initdb in a
// temp dir, one postmaster on a free 127.0.0.1 port with durability turned
// off, and nothing left behind after Close. Tests and the CLI use it when no
// --database-url is given.
package pgtemp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/internal/logtail"
)

const (
	// readyTimeout bounds Start's wait for connections even if ctx does not.
	readyTimeout = 30 * time.Second
	// readyPoll is the pause between connection attempts while starting.
	readyPoll = 20 * time.Millisecond
	// portRetries is how often Start retries after another process took the
	// port between our probe and the server's bind.
	portRetries = 3
	// maxSocketPath is the usable length of sockaddr_un.sun_path on Linux.
	maxSocketPath = 107
	// tailLines is how many server log lines an error message carries.
	tailLines = 50
)

// Options configures Start.
type Options struct {
	// Log receives the output of initdb and the server, one complete line
	// per Write. Nil discards it; either way the last 50 lines go into the
	// error when startup fails.
	Log io.Writer
	// BinDir holds initdb and postgres; empty means FindBinDir.
	BinDir string
}

// Cluster is a running throwaway PostgreSQL cluster. Close it.
type Cluster struct {
	dir  string
	port int
	log  *logtail.Tail
	srv  *server // nil until a postmaster is running

	// admin is CreateDatabase's connection to the postgres database, made
	// on its first call and kept: a connection costs the server a
	// process and milliseconds of CPU, and a test binary creates hundreds
	// of databases. adminMu serializes its use.
	adminMu sync.Mutex
	admin   *pgx.Conn

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Start initialises a fresh cluster in a new temp dir, starts postgres on a
// free 127.0.0.1 port with fsync, synchronous_commit and full_page_writes off
// and room for 400 connections (a test binary's parallel tests each serve a
// service whose pool and replicas hold dozens), and returns once it accepts
// connections. ctx bounds only the startup; after
// Start returns, the server runs until Close. If Start fails, it leaves no
// process and no directory behind.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	return start(ctx, opts, freePort)
}

// start is Start with the port picker as a seam, so tests can hand out a
// port that is already taken.
func start(ctx context.Context, opts Options, pickPort func() (int, error)) (_ *Cluster, err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pgtemp: start: %w", err)
	}
	if err := checkOS(); err != nil {
		return nil, err
	}
	binDir, err := resolveBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}

	dir, err := newClusterDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, log: logtail.New(tailLines, opts.Log)}
	defer func() {
		if err != nil {
			if cerr := c.Close(); cerr != nil {
				err = fmt.Errorf("%w\n(cleaning up also failed: %v)", err, cerr)
			}
		}
	}()

	dataDir := filepath.Join(dir, "data")
	sockDir, err := makeSocketDir(dir, cred)
	if err != nil {
		return nil, err
	}
	if err := initdb(ctx, binDir, dataDir, cred, c.log); err != nil {
		return nil, err
	}
	if err := c.boot(ctx, filepath.Join(binDir, "postgres"), dataDir, sockDir, cred, pickPort); err != nil {
		return nil, err
	}
	return c, nil
}

// resolveBinDir checks an explicit Options.BinDir before any directory is
// made, so a wrong path fails with what is missing instead of inside initdb.
func resolveBinDir(binDir string) (string, error) {
	if binDir == "" {
		return FindBinDir()
	}
	if missing := missingBinaries(binDir); missing != "" {
		return "", fmt.Errorf("%w (looked in Options.BinDir=%s: %s)", ErrNoBinaries, binDir, missing)
	}
	return binDir, nil
}

// newClusterDir makes the cluster's temp dir (in tmpfs where it can, see
// tempBase) and marks it as ours, first removing what a SIGKILLed idemstress
// left behind there: it cannot remove its own cluster, so the next one does.
func newClusterDir() (string, error) {
	base := tempBase()
	removeStale(base)
	if base != "" {
		removeStale("") // left there before clusters moved to base
	}
	dir, err := os.MkdirTemp(base, "idemstress-pg-*")
	if err != nil {
		return "", fmt.Errorf("pgtemp: create temp dir: %w (set TMPDIR to a writable directory)", err)
	}
	if err := markOwner(dir); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("pgtemp: create temp dir: %w", err)
	}
	return dir, nil
}

// makeSocketDir makes the unix socket dir under dir and hands both to the
// server's OS user. It refuses a dir whose socket path would not fit
// sockaddr_un, which postgres would report only as a failed start.
func makeSocketDir(dir string, cred *osUser) (string, error) {
	sockDir := filepath.Join(dir, "s")
	if n := len(sockDir) + len("/.s.PGSQL.65535"); n > maxSocketPath {
		return "", fmt.Errorf("pgtemp: unix socket path under %s would be %d bytes, over the limit of %d: set TMPDIR to a shorter directory such as /tmp", dir, n, maxSocketPath)
	}
	if err := os.Mkdir(sockDir, 0o700); err != nil {
		return "", fmt.Errorf("pgtemp: create socket dir: %w", err)
	}
	for _, p := range []string{dir, sockDir} {
		if err := chownTo(p, cred); err != nil {
			return "", err
		}
	}
	return sockDir, nil
}

// boot starts the postmaster on a port from pickPort and waits until it
// accepts connections. A free port may be taken before postgres binds it,
// so boot tries a new port up to portRetries more times.
func (c *Cluster) boot(ctx context.Context, postgres, dataDir, sockDir string, cred *osUser, pickPort func() (int, error)) error {
	for attempt := 0; ; attempt++ {
		port, err := pickPort()
		if err != nil {
			return err
		}
		args := []string{
			"-D", dataDir,
			"-p", strconv.Itoa(port),
			"-k", sockDir,
			"-c", "listen_addresses=127.0.0.1",
			"-c", "fsync=off",
			"-c", "synchronous_commit=off",
			"-c", "full_page_writes=off",
			// A test binary's runs go in parallel, each with a service
			// pool sized for a burst of 16 and the run's own sessions:
			// seven of them passed the default 100 in stress/apis/graphql.
			"-c", "max_connections=400",
		}
		srv, err := startServer(postgres, args, cred, c.dir, c.log)
		if err != nil {
			return err
		}
		c.srv, c.port = srv, port
		err = c.waitReady(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errPortTaken) {
			return err
		}
		if attempt == portRetries {
			return fmt.Errorf("pgtemp: gave up after %d tries (free ports keep being taken before postgres binds them; is something grabbing ports?): %w", attempt+1, err)
		}
		// The failed postmaster has exited and removed its lock files, so
		// the data dir is ready for another try.
		c.srv = nil
	}
}

// errPortTaken marks a server that could not bind its port.
var errPortTaken = errors.New("port already in use")

// initdb creates the cluster; as a short-lived child it may be bound to ctx.
func initdb(ctx context.Context, binDir, dataDir string, cred *osUser, log *logtail.Tail) error {
	path := filepath.Join(binDir, "initdb")
	cmd := exec.CommandContext(ctx, path,
		"-D", dataDir,
		"--auth=trust",
		"--username=postgres",
		"--encoding=UTF8",
		"--no-locale",
		"--no-sync",
	)
	cmd.Dir = filepath.Dir(dataDir)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.WaitDelay = pipeDrainDelay
	cmd.SysProcAttr = procAttr(cred)
	// initdb runs postgres in bootstrap mode as its own child; kill the
	// whole process group so a cancelled Start leaves neither behind. Wait
	// then returns only when every holder of the output pipe has exited.
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	mark := log.Mark()
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("pgtemp: start cancelled during initdb: %w", ctx.Err())
	}
	if err != nil {
		hint := ""
		if cred != nil && (errors.Is(err, fs.ErrPermission) || strings.Contains(log.Since(mark), "Permission denied")) {
			hint = fmt.Sprintf(" (running as root, initdb runs as the postgres OS user, which must be able to enter %s: check TMPDIR's permissions)", filepath.Dir(dataDir))
		}
		return fmt.Errorf("pgtemp: %s -D %s failed: %w%s; output:\n%s", path, dataDir, err, hint, quoteLog(log.Since(mark)))
	}
	return nil
}

// waitReady polls with real connections until the server accepts one, the
// server exits, ctx is done or readyTimeout passes.
func (c *Cluster) waitReady(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(c.URL())
	if err != nil {
		return fmt.Errorf("pgtemp: parse %s: %w", c.URL(), err)
	}
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	serverLog := func() string { return c.log.Since(c.srv.logMark) }
	var lastErr error
	for {
		// Something other than postgres may hold the port and accept
		// without answering; the attempt ends when our server exits.
		attemptCtx, cancel := context.WithTimeout(ctx, time.Second)
		stop := context.AfterFunc(c.srv.exited, cancel)
		conn, err := pgx.ConnectConfig(attemptCtx, cfg)
		stop()
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		lastErr = err

		select {
		case <-c.srv.exited.Done():
			if strings.Contains(serverLog(), "Address already in use") {
				return fmt.Errorf("pgtemp: postgres could not bind 127.0.0.1:%d, taken by another process since we probed it: %w; server log:\n%s",
					c.port, errPortTaken, quoteLog(serverLog()))
			}
			return fmt.Errorf("pgtemp: postgres (port %d, data dir %s) exited during startup: %v; server log:\n%s",
				c.port, filepath.Join(c.dir, "data"), c.srv.waitErr, quoteLog(serverLog()))
		case <-ctx.Done():
			return fmt.Errorf("pgtemp: start cancelled while waiting for postgres on 127.0.0.1:%d: %w", c.port, ctx.Err())
		case <-deadline.C:
			return fmt.Errorf("pgtemp: postgres on 127.0.0.1:%d not accepting connections after %s (last attempt: %v); server log:\n%s",
				c.port, readyTimeout, lastErr, quoteLog(serverLog()))
		case <-time.After(readyPoll):
		}
	}
}

// quoteLog indents log lines for quoting in an error message, or says
// there were none.
func quoteLog(lines string) string {
	if lines == "" {
		return "\t(no output)"
	}
	return "\t" + strings.ReplaceAll(lines, "\n", "\n\t")
}

// freePort asks the kernel for a free port. Another process may take it
// before postgres binds; Start retries then.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtemp: find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL is the connection URL of the cluster's postgres database.
func (c *Cluster) URL() string {
	return c.databaseURL("postgres")
}

func (c *Cluster) databaseURL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// Port is the TCP port the server listens on at 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// Dir is the temp dir holding the data dir and socket dir; Close removes it.
func (c *Cluster) Dir() string { return c.dir }

// PID is the process id of the postmaster.
func (c *Cluster) PID() int { return c.srv.pid() }

var databaseName = regexp.MustCompile(`^[a-z0-9_]{1,63}$`)

// CreateDatabase creates an empty database and returns its URL. name must
// match [a-z0-9_]+ and be at most 63 bytes, PostgreSQL's identifier limit.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) (string, error) {
	if !databaseName.MatchString(name) {
		return "", fmt.Errorf("pgtemp: create database %q: name must be 1 to 63 of [a-z0-9_]", name)
	}
	if c.closed.Load() {
		return "", fmt.Errorf("pgtemp: create database %q: cluster in %s is closed", name, c.dir)
	}
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	for attempt := 0; ; attempt++ {
		if c.admin == nil || c.admin.IsClosed() {
			conn, err := pgx.Connect(ctx, c.URL())
			if err != nil {
				return "", fmt.Errorf("pgtemp: create database %q: connect to %s: %w", name, c.URL(), err)
			}
			c.admin = conn
		}
		_, err := c.admin.Exec(ctx, sql+fileCopy(c.admin))
		if err == nil {
			break
		}
		// A connection the server ended while it sat idle (a test that
		// terminates backends or restarts the server) fails its next
		// call and is closed: connect again, once.
		if attempt > 0 || ctx.Err() != nil || !c.admin.IsClosed() {
			return "", fmt.Errorf("pgtemp: create database %q on %s: %w", name, c.URL(), err)
		}
	}
	return c.databaseURL(name), nil
}

// fileCopy is the clause that has conn's server (PostgreSQL 15 or later)
// copy the template's files instead of logging each of its pages to the
// WAL, half the CPU on a cluster with durability off; "" for an older
// server, which copies files anyway.
func fileCopy(conn *pgx.Conn) string {
	v := conn.PgConn().ParameterStatus("server_version")
	major, _, _ := strings.Cut(v, ".")
	if n, err := strconv.Atoi(major); err == nil && n >= 15 {
		return " STRATEGY FILE_COPY"
	}
	return ""
}

// Close stops the server with a fast shutdown (SIGKILL if that takes over
// 10s), waits for it to exit and removes the temp dir. It may be called more
// than once and from several goroutines, e.g. a defer and a signal handler;
// every call returns once the first has finished, with its result.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		var errs []error
		if c.srv != nil {
			errs = append(errs, c.srv.stop(stopTimeout))
		}
		// The server is gone, so a CreateDatabase under way has returned
		// and admin's close sends nothing that could wait.
		c.adminMu.Lock()
		if c.admin != nil {
			_ = c.admin.Close(context.Background())
			c.admin = nil
		}
		c.adminMu.Unlock()
		if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, fmt.Errorf("pgtemp: remove %s: %w", c.dir, err))
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
