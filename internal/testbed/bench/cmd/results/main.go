// Command results regenerates internal/testbed/bench/RESULTS.md: every figure of issue 11's
// benchmark table (P1–P6), measured here against a throwaway PostgreSQL
// cluster and services on loopback, with the machine, date, commit and Go
// version they come from. Run it from the repository's root:
//
//	go run ./internal/testbed/bench/cmd/results          # the full run, about 20 minutes on 2 cores
//	go run ./internal/testbed/bench/cmd/results -quick   # every section, small sizes, a couple of minutes
//
// Progress goes to stderr. A program rather than a test: no test timeout
// to guess, progress as it happens, and P6's child processes are this
// program started again (-p6-child), holding nothing but the run measured.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync/atomic"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/bench"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-p6-child" {
		os.Exit(bench.RunChild(context.Background(), os.Args[2:], os.Stdout, os.Stderr))
	}
	quick := flag.Bool("quick", false, "few seeds and small sizes: checks every section can be produced, in a couple of minutes")
	out := flag.String("o", "internal/testbed/bench/RESULTS.md", "where to write the results")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *quick, *out); err != nil {
		fmt.Fprintln(os.Stderr, "results:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, quick bool, out string) error {
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "results: "+format+"\n", args...) }
	logf("starting a throwaway PostgreSQL cluster")
	cluster, err := pgtemp.Start(ctx, pgtemp.Options{})
	if err != nil {
		return err
	}
	defer cluster.Close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var seq atomic.Int64
	res, err := bench.Generate(ctx, bench.Options{
		Quick: quick,
		NewDB: func(ctx context.Context) (string, error) {
			return cluster.CreateDatabase(ctx, fmt.Sprintf("results_%d", seq.Add(1)))
		},
		Child: func(ctx context.Context, args []string) *exec.Cmd {
			return exec.CommandContext(ctx, self, append([]string{"-p6-child"}, args...)...)
		},
		Log: logf,
	})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := bench.WriteMarkdown(&b, res); err != nil {
		return err
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return err
	}
	logf("wrote %s", out)
	return nil
}
