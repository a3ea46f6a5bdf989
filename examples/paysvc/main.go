package paysvc

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	migrateTimeout  = 30 * time.Second
	shutdownTimeout = 10 * time.Second
	// poolSize is the service's pool unless the URL sets pool_max_conns:
	// room for every call of the largest burst (16) at once. pgx's default
	// (4 on two cores) queues calls for a connection, where the db-stall
	// nemesis cannot see them.
	poolSize = 40
)

// UsageError is a mistake in the command line or environment given to
// Main; a command exits 2 on it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// config is the parsed command line.
type config struct {
	listen      string
	databaseURL string
	opts        Options
}

func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("paysvc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address to listen on (default 127.0.0.1:$PORT when PORT is set)")
	fs.StringVar(&c.databaseURL, "database-url", getenv("DATABASE_URL"), "PostgreSQL URL (default $DATABASE_URL)")
	fs.StringVar(&c.opts.Bug, "bug", "", "bug-zoo mode, or several joined by commas (a,b): "+strings.Join(Bugs(), ", ")+" (empty: correct)")
	fs.StringVar(&c.opts.KeyHeader, "key-header", "", "header the idempotency key travels in, e.g. X-Request-Id (empty: the body's idempotency_key)")
	fs.DurationVar(&c.opts.InUseAfter, "in-use-after", defaultInUseAfter, "how long a call waits for another call of its key before answering 409")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, UsageError{err}
	}
	if fs.NArg() > 0 {
		return config{}, UsageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	listenSet := false
	fs.Visit(func(f *flag.Flag) { listenSet = listenSet || f.Name == "listen" })
	if port := getenv("PORT"); port != "" && !listenSet {
		c.listen = net.JoinHostPort("127.0.0.1", port)
	}
	if c.databaseURL == "" {
		return config{}, UsageError{errors.New("no database: pass -database-url or set DATABASE_URL")}
	}
	if c.opts.InUseAfter <= 0 {
		return config{}, UsageError{fmt.Errorf("-in-use-after %s: must be positive", c.opts.InUseAfter)}
	}
	return c, nil
}

// Main is the paysvc command: it parses args (and PORT, DATABASE_URL from
// getenv), creates the schema, prints "listening on ADDR" to stderr once it
// accepts connections, and serves until ctx is cancelled, then shuts down
// within 10 s. A mistake in args or the environment is a UsageError;
// flag.ErrHelp after -h. Another binary may call it to serve the sample
// in-process.
func Main(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	c, err := parseFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	pool, err := openPool(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	c.opts.Logger = logger
	svc, err := New(pool, c.opts)
	if err != nil {
		return UsageError{err}
	}
	mctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	err = Migrate(mctx, pool)
	cancel()
	if err != nil {
		return err
	}
	return serve(ctx, svc, c.listen, logger, stderr)
}

// openPool opens the pool of the database at url, poolSize connections
// unless the URL says how many.
func openPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, UsageError{fmt.Errorf("-database-url: %w", err)}
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = poolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, UsageError{fmt.Errorf("-database-url: %w", err)}
	}
	return pool, nil
}

// serve serves h on listen, says so on stderr once it accepts
// connections, and shuts down within shutdownTimeout once ctx ends.
func serve(ctx context.Context, h http.Handler, listen string, logger *slog.Logger, stderr io.Writer) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	// True from here on: the socket accepts connections since Listen, and
	// the kernel queues them until Serve takes them.
	fmt.Fprintf(stderr, "listening on %s\n", ln.Addr())

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		<-served
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
