package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"strings"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/report"
	"github.com/idemstress/idemstress/stress"
)

func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs)
	schema := fs.String("schema", "keys", "sample service layouts to test: keys, tagged, or all")
	dbStall := fs.String("db-stall", "tickets", "effect table to write-lock while each burst is released (\"\" for none)")
	syncMode := fs.String("sync", "lastbyte", "how bursts are released: lastbyte or naive")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if !isSet(fs, "shrink-time") {
		f.shrinkTime = 10 * time.Second // the demo's bugs shrink fast; keep it brisk
	}
	layouts, ok := demoLayouts(*schema)
	if !ok {
		fmt.Fprintf(stderr, "idemstress demo: --schema %q; want keys, tagged or all\n", *schema)
		return exitUsage
	}
	sync, err := client.ParseSyncMode(*syncMode)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress demo: --sync: %v\n", err)
		return exitUsage
	}
	nemesis := demoNemesis{sync: sync, stall: *dbStall}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "idemstress demo: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	servers, cleanup, err := demoDatabases(ctx, f.databaseURL, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress demo: %v\n", err)
		return exitFor(err)
	}
	defer cleanup()

	var cases []report.Case
	code := exitPass
layouts:
	for _, layout := range layouts {
		for _, mode := range sample.Modes() {
			cs, err := demoMode(ctx, servers, mode, layout, f, nemesis, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "idemstress demo: %s (%s layout): %v\n", mode, layout, err)
				return exitFor(err)
			}
			cases = append(cases, *cs)
			if !cs.AsExpected() {
				code = max(code, exitViolations)
				if cs.Verdict == "inconclusive" {
					code = exitInconclusive
				}
			}
			if ctx.Err() != nil {
				code = exitInconclusive
				break layouts
			}
		}
	}
	if err := write(stdout, f.json, cases); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return code
}

// demoDatabases returns a function that makes a fresh database per target:
// on the server at url, or on a throwaway cluster when url is "".
func demoDatabases(ctx context.Context, url string, stderr io.Writer) (func(context.Context, string) (string, error), func(), error) {
	url = firstNonEmpty(url, os.Getenv("DATABASE_URL"))
	if url == "" {
		fmt.Fprintln(stderr, "idemstress demo: starting a throwaway PostgreSQL cluster")
		cluster, err := pgtemp.Start(ctx, pgtemp.Options{})
		if err != nil {
			return nil, nil, err
		}
		return cluster.CreateDatabase, func() { _ = cluster.Close() }, nil
	}
	pool, err := connect(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	run := time.Now().UnixNano()
	create := func(ctx context.Context, name string) (string, error) {
		db := fmt.Sprintf("%s_%d", name, run)
		if _, err := pool.Exec(ctx, "CREATE DATABASE "+db); err != nil {
			return "", fmt.Errorf("creating database %s (the demo needs CREATEDB on --database-url): %w", db, err)
		}
		u, err := neturl.Parse(url)
		if err != nil || u.Scheme == "" {
			return "", fmt.Errorf("the demo needs --database-url as a postgres:// URL, got %q", url)
		}
		u.Path = "/" + db // keeps user, password, host and TLS settings
		return u.String(), nil
	}
	return create, pool.Close, nil
}

// demoMode starts the sample service in one mode, in-process on a loopback
// port over a database of its own, and runs the tester against it.
// demoNemesis is how the demo releases bursts and what it stalls.
type demoNemesis struct {
	sync  client.SyncMode
	stall string
}

func demoMode(ctx context.Context, createDB func(context.Context, string) (string, error), mode string, layout ticketsvc.Layout, f runFlags, n demoNemesis, stderr io.Writer) (*report.Case, error) {
	url, err := createDB(ctx, "demo_"+string(layout)+"_"+strings.ReplaceAll(mode, "-", "_"))
	if err != nil {
		return nil, err
	}
	svc, err := sample.Start(ctx, url, mode, layout)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	cfg, err := svc.Config(f.plans, f.seed)
	if err != nil {
		return nil, err
	}
	cfg.ShrinkTime, cfg.Sync, cfg.DBStall = f.shrinkTime, n.sync, n.stall
	fmt.Fprintf(stderr, "idemstress demo: %s (%s layout) at %s\n", mode, layout, strings.Join(svc.Addrs, ", "))
	res, err := stress.Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cs := caseOf(mode, res)
	cs.Layout = string(layout)
	cs.Expected = "pass"
	if id, ok := sample.Expected[mode]; ok {
		cs.Expected = string(id)
	}
	return &cs, nil
}

func demoLayouts(schema string) ([]ticketsvc.Layout, bool) {
	if schema == "all" {
		return sample.Layouts(), true
	}
	for _, l := range sample.Layouts() {
		if string(l) == schema {
			return []ticketsvc.Layout{l}, true
		}
	}
	return nil, false
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
