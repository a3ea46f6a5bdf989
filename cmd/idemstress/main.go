// Command idemstress proves idempotent "create" endpoints right: it runs
// random sequences of create calls against a real target, reads the
// target's PostgreSQL tables, checks answers AND committed rows against a
// reference model, and shrinks every failure to a minimal plan.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/stress"
)

// Exit codes.
const (
	exitPass         = 0 // no violation found
	exitViolations   = 1 // violations found
	exitUsage        = 2 // usage or contract error
	exitInconclusive = 3 // inconclusive, or the target or database unreachable
)

const usage = `usage: idemstress <command> [flags]

commands:
  demo     run the tester against the sample service and its bug zoo,
           on a throwaway PostgreSQL it starts itself
  run      run the tester against your service: run --config FILE
           (each failure's case file goes to --cases DIR, default idemstress-cases)
  stress   run until --duration or --plans is spent, every bug found shrunk
           and reported; --shard i/n splits a job: stress --config FILE
  merge    combine the JSON reports of a job's shards: merge FILE...
  replay   re-run regression case files: replay FILE|DIR... --config FILE
  init     draft a commented contract from an OpenAPI document and one create
           call, then doctor it: init --openapi FILE --operation ID --url URL
  doctor   check a contract file against the database and the service,
           with a keyless call and one create: doctor --config FILE
  sample-service
           serve a sample service, as demo does: sample-service
           [ticketsvc|paysvc] -database-url URL [-listen ADDR] [-bug NAME]
  version  print the version, commit and Go version it was built with
  help     show this help

idemstress <command> --help lists a command's flags.

exit codes: 0 pass, 1 violations found, 2 usage or contract error,
3 inconclusive or infrastructure failure (interrupted with no bug found)
`

// exitFor is the exit code of an error that ends a command before any
// verdict: what the user can fix in flags, contract, schema or installation
// is a usage error; anything else (unreachable, interrupted) inconclusive.
func exitFor(err error) int {
	for _, usage := range []error{stress.ErrBadURL, contract.ErrContract, observe.ErrSchema, pgtemp.ErrNoBinaries} {
		if errors.Is(err, usage) {
			return exitUsage
		}
	}
	return exitInconclusive
}

func main() {
	// SIGHUP (a closed terminal, a CI runner's stop) cleans up as SIGINT
	// does: the service and the database idemstress started are stopped.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Database URLs reach messages (a service's argv, a quoted contract
	// line, a driver's error); no password may reach the output.
	stdout, stderr = redact.Writer{W: stdout}, redact.Writer{W: stderr}
	// Bodies, IDs and errors quote the service: a terminal must show, never
	// obey, what they hold (ESC[2J, an OSC title). JSON is untouched: it
	// never holds a raw control character.
	// A line is cut past model.MaxLine: an error may quote 200 KB of the
	// service's output or of a contract line. JSON is written whole
	// (report.EncodeJSON), its messages cut before encoding.
	stdout, stderr = report.PrintableWriter{W: stdout, Cut: true}, report.PrintableWriter{W: stderr, Cut: true}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "demo":
		return demoCmd(ctx, args[1:], stdout, stderr)
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr)
	case "stress":
		return stressCmd(ctx, args[1:], stdout, stderr)
	case "merge":
		return mergeCmd(ctx, args[1:], stdout, stderr)
	case "doctor":
		return doctorCmd(ctx, args[1:], stdout, stderr)
	case "init":
		return initCmd(ctx, args[1:], stdout, stderr)
	case "replay":
		return replayCmd(ctx, args[1:], stdout, stderr)
	case sampleServiceCmd:
		return sampleService(ctx, args[1:], stderr)
	case "version", "--version":
		return versionCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitPass
	default:
		fmt.Fprintf(stderr, "idemstress: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}
