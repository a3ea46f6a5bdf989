package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// demoCmd runs the sample service in each of its modes, correct and
// broken, and prints a row each with what was expected of it.
func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	schema := fs.String("schema", "keys", "sample service layouts to test: keys, tagged, or all")
	dbStall := fs.String("db-stall", "tickets", "effect table to write-lock while each burst is released (\"\" for none)")
	syncMode := fs.String("sync", "lastbyte", "how bursts are released: lastbyte or naive")
	only := fs.String("modes", "", "the rows to run, comma-separated (a row of several bugs joins them with +, e.g. no-payload-check+global-keys; default: every row)")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return parseExit(err)
	}
	processShrink := f.shrinkTime
	if !isSet(fs, "shrink-time") {
		f.shrinkTime = 10 * time.Second // the demo's bugs shrink fast; keep it brisk
		// Plans that restart the service take a restart's time (~0.2 s) to
		// run: shrinking them to their three steps takes longer.
		processShrink = 30 * time.Second
	}
	if !isSet(fs, "max-bugs") {
		f.maxBugs = 1 // one bug a mode, but for the row with two
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
	modes, err := demoModes(*only)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress demo: --modes: %v\n", err)
		return exitUsage
	}
	nemesis := demoNemesis{sync: sync, stall: *dbStall, processShrink: processShrink}
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

	rows, code, err := demoRows(ctx, servers, layouts, modes, f, nemesis, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress demo: %v\n", err)
		return exitFor(err)
	}
	if err := writeDemo(stdout, f.json, rows); err != nil {
		fmt.Fprintf(stderr, "idemstress: writing the report: %v\n", err)
		return exitInconclusive
	}
	return code
}

// demoRows runs each mode under each layout, a row each, and returns the
// rows with the exit code their expectations give. It stops at the first
// row that could not run, and after the row during which ctx ended.
func demoRows(ctx context.Context, servers func(context.Context, string) (string, error), layouts []ticketsvc.Layout, modes []string, f runFlags, nemesis demoNemesis, stderr io.Writer) ([]demoRow, int, error) {
	var rows []demoRow
	code := exitPass
	for i, layout := range layouts {
		for _, mode := range modes {
			if (sample.IsPay(mode) || sample.IsWebhook(mode)) && i > 0 {
				continue // paysvc has one schema, the webhook one layout: their rows run once
			}
			if sample.NeedsRedis(mode) && sample.RedisServer() == "" {
				// The README asks for Go and PostgreSQL only: a row that
				// needs Redis is left out, and says how to get it.
				fmt.Fprintf(stderr, "idemstress demo: %s left out: it keeps its keys in Redis, and there is no redis-server on PATH (apt-get install -y redis-server)\n", mode)
				continue
			}
			row, err := demoMode(ctx, servers, mode, layout, f, nemesis, stderr)
			if err != nil {
				return nil, 0, fmt.Errorf("%s (%s layout): %w", mode, layout, err)
			}
			if len(layouts) > 1 && !sample.IsPay(mode) {
				row.Target += " (" + string(layout) + ")"
			}
			rows = append(rows, row)
			if !row.AsExpected {
				code = max(code, exitViolations)
				if row.Verdict == checks.Inconclusive {
					code = exitInconclusive
				}
			}
			if ctx.Err() != nil {
				return rows, exitInconclusive, nil
			}
		}
	}
	return rows, code, nil
}

// demoModes are the rows --modes names, in the demo's order: every row
// when it names none. A row of several bugs is named with + between them,
// since the flag's own list is comma-separated.
func demoModes(only string) ([]string, error) {
	all := slices.Concat(sample.Modes(), []string{twoBugs}, sample.WebhookModes(), sample.PayModes())
	if only == "" {
		return all, nil
	}
	var names []string
	for _, a := range all {
		names = append(names, strings.ReplaceAll(a, ",", "+"))
	}
	var modes []string
	for _, m := range strings.Split(only, ",") {
		m = strings.TrimSpace(m)
		i := slices.Index(names, m)
		if i < 0 {
			return nil, fmt.Errorf("no row %q; the rows are %s", m, strings.Join(names, ", "))
		}
		if !slices.Contains(modes, all[i]) {
			modes = append(modes, all[i])
		}
	}
	slices.SortFunc(modes, func(a, b string) int { return slices.Index(all, a) - slices.Index(all, b) })
	return modes, nil
}

// demoDatabases returns a function that makes a fresh database per target:
// on the server at url, or on a throwaway cluster when url is "".
func demoDatabases(ctx context.Context, url string, stderr io.Writer) (func(context.Context, string) (string, error), func(), error) {
	url = cmp.Or(url, os.Getenv("DATABASE_URL"))
	if url == "" {
		fmt.Fprintln(stderr, "idemstress demo: starting a throwaway PostgreSQL cluster")
		cluster, err := pgtemp.Start(ctx, pgtemp.Options{})
		if err != nil {
			return nil, nil, err
		}
		return cluster.CreateDatabase, func() { _ = cluster.Close() }, nil
	}
	pool, err := stress.Connect(ctx, url)
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

// demoNemesis is how the demo releases bursts and what it stalls.
type demoNemesis struct {
	sync  client.SyncMode
	stall string
	// processShrink is the shrink budget of the modes run as processes.
	processShrink time.Duration
}

// demoMode starts the sample service in one mode, in-process on a loopback
// port over a database of its own, and runs the tester against it.
func demoMode(ctx context.Context, createDB func(context.Context, string) (string, error), mode string, layout ticketsvc.Layout, f runFlags, n demoNemesis, stderr io.Writer) (demoRow, error) {
	if sample.IsPay(mode) {
		layout = "paysvc"
	}
	if sample.IsWebhook(mode) {
		layout = ticketsvc.LayoutKeys
	}
	url, err := createDB(ctx, "demo_"+string(layout)+"_"+strings.NewReplacer("-", "_", ",", "__", "/", "_").Replace(mode))
	if err != nil {
		return demoRow{}, err
	}
	cfg, stop, err := demoConfig(ctx, url, mode, layout, f, stderr)
	if err != nil {
		return demoRow{}, err
	}
	defer stop()
	stall := n.stall
	if sample.IsPay(mode) {
		stall = cfg.DBStall // paysvc stalls the table its own contract names
	}
	cfg.ShrinkTime, cfg.Sync, cfg.DBStall, cfg.MaxBugs = f.shrinkTime, n.sync, stall, f.maxBugs
	if cfg.Process != nil {
		cfg.ShrinkTime = n.processShrink
	}
	if mode == twoBugs {
		cfg.MaxBugs = 0
	}
	progress := newProgress(stderr, mode+": ")
	cfg.Progress = progress.Update
	res, err := stress.Run(ctx, cfg)
	progress.Done()
	if err != nil {
		return demoRow{}, err
	}
	row := demoRow{Row: res.Row(mode), Layout: string(layout), Expected: "pass"}
	if id, ok := sample.Expected[mode]; ok {
		row.Expected = string(id)
	}
	if mode == twoBugs {
		row.Expected = twoBugsExpected
	}
	row.AsExpected = asExpected(row.Row, row.Expected)
	return row, nil
}

// demoConfig is the tester's configuration for one mode over the database
// at url: the service as processes of this binary where the mode needs
// them (paysvc, the webhook, restarts and crashes), else started in
// process, which stop ends.
func demoConfig(ctx context.Context, url, mode string, layout ticketsvc.Layout, f runFlags, stderr io.Writer) (cfg stress.Config, stop func(), err error) {
	stop = func() {}
	if !sample.IsPay(mode) && !sample.IsWebhook(mode) && !sample.Processes(mode) {
		svc, err := sample.Start(ctx, url, mode, layout)
		if err != nil {
			return cfg, nil, err
		}
		if cfg, err = svc.Config(f.plans, f.seed); err != nil {
			svc.Close()
			return cfg, nil, err
		}
		fmt.Fprintf(stderr, "idemstress demo: %s (%s layout) at %s\n", mode, layout, strings.Join(svc.Addrs, ", "))
		return cfg, svc.Close, nil
	}
	serve, err := sampleServer()
	if err != nil {
		return cfg, nil, err
	}
	var what string
	switch {
	case sample.IsPay(mode):
		// The second sample, a payments API of another shape, the correct
		// rows under every fault kind.
		cfg, err = sample.PayProcessConfig(append(serve, "paysvc"), url, mode)
		what = mode + " as processes"
	case sample.IsWebhook(mode):
		// The keys layout, with the contract's sink receiving the
		// webhook's deliveries.
		cfg, err = sample.WebhookConfig(serve, url, mode)
		what = fmt.Sprintf("%s (%s layout) as processes with the webhook", mode, layout)
	default:
		// Restarts and crashes need processes: the real binary, started
		// and faulted by idemstress.
		cfg, err = sample.ProcessConfig(serve, url, mode, layout)
		what = fmt.Sprintf("%s (%s layout) as processes", mode, layout)
	}
	if err != nil {
		return cfg, nil, err
	}
	cfg.Plans, cfg.Seed, cfg.Log = f.plans, f.seed, stderr
	fmt.Fprintf(stderr, "idemstress demo: %s, faults %v\n", what, cfg.Faults)
	return cfg, stop, nil
}

// sampleServer is the command that serves the sample service as a process:
// this very binary's "sample-service", so that an installed idemstress
// needs neither a checkout nor a Go toolchain for its demo.
func sampleServer() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("the demo runs some modes as processes of this binary (idemstress sample-service): %w", err)
	}
	return []string{exe, sampleServiceCmd}, nil
}

// demoRow is one mode of the sample service, tested in one layout, and
// whether it came out as the demo expects.
type demoRow struct {
	report.Row
	Layout string `json:"layout"`
	// Expected is "pass" or the check that must come first.
	Expected   string `json:"expected"`
	AsExpected bool   `json:"as_expected"`
}

// twoBugs is the demo's service with two bugs at once: one run reports
// both, the tenant leak first.
const twoBugs, twoBugsExpected = "no-payload-check,global-keys", "IDEM-007,IDEM-004"

// asExpected: the correct mode passes, and each bug is caught by its check
// first (among others); several bugs (a comma list) by their checks first,
// in that order.
func asExpected(c report.Row, expected string) bool {
	if expected == string(checks.Pass) {
		return c.Verdict == checks.Pass
	}
	want := strings.Split(expected, ",")
	if c.Verdict != checks.Fail || len(c.Checks) < len(want) {
		return false
	}
	for i, id := range want {
		if string(c.Checks[i]) != id {
			return false
		}
	}
	return true
}

// writeDemo prints the demo's rows: the report's table with the layout and
// the expectation as columns of their own, or JSON.
func writeDemo(w io.Writer, asJSON bool, rows []demoRow) error {
	if asJSON {
		return report.EncodeJSON(w, rows)
	}
	cases := make([]report.Row, len(rows))
	layout := report.Column{Header: "LAYOUT"}
	expected := report.Column{Header: "EXPECTED"}
	for i, r := range rows {
		cases[i] = r.Row
		mark := "ok"
		if !r.AsExpected {
			mark = "NOT AS EXPECTED"
		}
		layout.Cells = append(layout.Cells, r.Layout)
		expected.Cells = append(expected.Cells, r.Expected+" ("+mark+")")
	}
	return report.WriteTable(w, cases, layout, expected)
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
