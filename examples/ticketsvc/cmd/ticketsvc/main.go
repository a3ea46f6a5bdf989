// Command ticketsvc serves the ticketsvc sample target over PostgreSQL;
// package server documents its flags.
//
//	ticketsvc -database-url postgres://... [-listen 127.0.0.1:8080] [-bug NAME[,NAME...]] [-schema keys|tagged]
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemstress/idemstress/examples/ticketsvc/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := server.Main(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	os.Exit(code)
}
