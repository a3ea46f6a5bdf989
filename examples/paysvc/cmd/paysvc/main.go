// Command paysvc serves the paysvc sample target over PostgreSQL.
//
//	paysvc -database-url postgres://... [-listen 127.0.0.1:8080] [-bug NAME[,NAME...]] [-key-header X-Request-Id] [-in-use-after 2s]
//
// It creates its schema at start (several processes may start over one
// database at once), prints "listening on ADDR" to stderr once it accepts
// connections, and shuts down gracefully on SIGINT or SIGTERM. With PORT
// set and no -listen it listens on 127.0.0.1:$PORT. See paysvc.Main.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemstress/idemstress/examples/paysvc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := paysvc.Main(ctx, os.Args[1:], os.Getenv, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, new(paysvc.UsageError)):
		fmt.Fprintln(os.Stderr, "paysvc:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "paysvc:", err)
		os.Exit(1)
	}
}
