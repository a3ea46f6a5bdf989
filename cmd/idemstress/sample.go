package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/examples/ticketsvc/server"
)

// sampleServiceCmd serves a sample service from this binary: the demo runs
// its restart and crash modes as processes of it, and a user can point a
// contract at it with nothing but the installed binary.
const sampleServiceCmd = "sample-service"

// sampleService serves the sample the first argument names (ticketsvc when
// it is a flag or absent, or paysvc) with the rest as its flags, until ctx
// ends.
func sampleService(ctx context.Context, args []string, stderr io.Writer) int {
	name := "ticketsvc"
	if len(args) > 0 && (args[0] == "ticketsvc" || args[0] == "paysvc") {
		name, args = args[0], args[1:]
	} else if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		fmt.Fprintf(stderr, "idemstress sample-service: no sample %q; want ticketsvc or paysvc, then its flags\n", args[0])
		return exitUsage
	}
	if name == "ticketsvc" {
		return server.Main(ctx, args, os.Getenv, stderr)
	}
	err := paysvc.Main(ctx, args, os.Getenv, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitPass
	case errors.As(err, new(paysvc.UsageError)):
		fmt.Fprintln(stderr, "paysvc:", err)
		return exitUsage
	default:
		fmt.Fprintln(stderr, "paysvc:", err)
		return 1
	}
}
