// Package server is the ticketsvc command: its flags, its pool, and
// serving until the context ends. The ticketsvc binary is a thin main over
// Main, and so is idemstress's own "sample-service" command, so that an
// installed idemstress serves the demo's sample as processes of itself,
// with no Go toolchain or checkout at hand.
//
//	ticketsvc -database-url postgres://... [-listen 127.0.0.1:8080] [-bug NAME[,NAME...]] [-schema keys|tagged]
//
// It creates its schema in the -schema layout, as the -bug mode needs it, at
// start (refusing a database that holds another schema; several processes
// may start over one database at once), prints "listening on ADDR" to
// stderr once it accepts connections, and shuts down gracefully when ctx
// ends (the binaries end it on SIGINT or SIGTERM). With PORT set and no
// -listen it listens on 127.0.0.1:$PORT.
package server

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

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	migrateTimeout  = 30 * time.Second
	shutdownTimeout = 10 * time.Second
)

// Main serves the sample until ctx ends and returns the exit code: 0 after
// a graceful shutdown (or -h), 2 for a mistake in the command line or
// environment, 1 for anything else, said on stderr.
func Main(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	err := run(ctx, args, getenv, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintln(stderr, "ticketsvc:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "ticketsvc:", err)
		return 1
	}
}

// usageError is a mistake in the command line or environment.
type usageError struct{ error }

// config is the parsed command line.
type config struct {
	listen      string
	databaseURL string
	bug         string
	schema      ticketsvc.Layout
	redisURL    string
	webhookURL  string
	eventsURL   string
	eventStream string
}

func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("ticketsvc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address to listen on (default 127.0.0.1:$PORT when PORT is set)")
	fs.StringVar(&c.databaseURL, "database-url", getenv("DATABASE_URL"), "PostgreSQL URL (default $DATABASE_URL)")
	fs.StringVar(&c.bug, "bug", "", "bug-zoo mode, or several joined by commas (a,b): "+strings.Join(ticketsvc.Bugs(), ", ")+
		"; or a correct design: "+strings.Join(ticketsvc.CorrectModes(), ", ")+"; or keys in Redis (-redis-url): "+strings.Join(ticketsvc.RedisModes(), ", ")+
		"; or webhook mistakes (-webhook-url): "+strings.Join(ticketsvc.WebhookBugs(), ", ")+" (empty: correct)")
	fs.StringVar(&c.webhookURL, "webhook-url", getenv("WEBHOOK_URL"), "URL to announce each ticket created at, through the outbox (default $WEBHOOK_URL; empty: none)")
	fs.StringVar(&c.eventsURL, "events-redis-url", getenv("EVENTS_REDIS_URL"), "Redis URL to publish each ticket created to, as a stream entry through the outbox, instead of a webhook (default $EVENTS_REDIS_URL; empty: none)")
	fs.StringVar(&c.eventStream, "events-stream", "", "the stream -events-redis-url publishes to (default "+ticketsvc.DefaultEventsStream+")")
	fs.StringVar(&c.redisURL, "redis-url", getenv("REDIS_URL"), "Redis URL the keys-in-redis modes keep their keys in (default $REDIS_URL)")
	var layouts []string
	for _, l := range ticketsvc.Layouts() {
		layouts = append(layouts, string(l))
	}
	schema := fs.String("schema", string(ticketsvc.LayoutKeys), "schema layout: "+strings.Join(layouts, ", "))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, usageError{err}
	}
	if fs.NArg() > 0 {
		return config{}, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	listenSet := false
	fs.Visit(func(f *flag.Flag) { listenSet = listenSet || f.Name == "listen" })
	if port := getenv("PORT"); port != "" && !listenSet {
		c.listen = net.JoinHostPort("127.0.0.1", port)
	}
	if c.databaseURL == "" {
		return config{}, usageError{errors.New("no database: pass -database-url or set DATABASE_URL")}
	}
	c.schema = ticketsvc.Layout(*schema)
	return c, nil
}

// poolSize is the service's pool unless the URL sets pool_max_conns: room
// for every call of the largest burst (16) at once. pgx's default (4 on two
// cores) queues calls for a connection, where the db-stall nemesis cannot
// see them, and a correct service then comes out inconclusive.
const poolSize = 40

// poolConfig is the pool the service runs with.
func poolConfig(url string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = poolSize
	}
	return cfg, nil
}

// run opens the database, builds the service in the mode the flags
// select and migrates its schema, then serves until ctx is cancelled.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	c, err := parseFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	cfg, err := poolConfig(c.databaseURL)
	if err != nil {
		return usageError{fmt.Errorf("-database-url: %w", err)}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return usageError{fmt.Errorf("-database-url: %w", err)}
	}
	defer pool.Close()
	svc, err := ticketsvc.New(pool, ticketsvc.Options{Bug: c.bug, Layout: c.schema, RedisURL: c.redisURL, WebhookURL: c.webhookURL,
		EventsRedisURL: c.eventsURL, EventsStream: c.eventStream, Logger: logger})
	if err != nil {
		return usageError{err}
	}
	defer svc.Close()
	mctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	err = ticketsvc.Migrate(mctx, pool, c.schema, ticketsvc.ForBug(c.bug))
	cancel()
	if err != nil {
		return err
	}
	return serve(ctx, c.listen, svc, logger, stderr)
}

// serve serves svc on addr until ctx is done, with the outbox relay
// beside it, then shuts down within shutdownTimeout. It says "listening
// on" once the socket accepts connections: tests and scripts wait for
// that line.
func serve(ctx context.Context, addr string, svc *ticketsvc.Service, logger *slog.Logger, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           svc,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	// The outbox relay, when there is a webhook, until the service stops.
	rctx, stopRelay := context.WithCancel(ctx)
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		if err := svc.Relay(rctx); err != nil {
			logger.Error("webhook relay stopped", "err", err)
		}
	}()
	defer func() { stopRelay(); <-relayed }()
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
