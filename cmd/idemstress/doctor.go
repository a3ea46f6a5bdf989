package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/observe"
	"github.com/idemstress/idemstress/stress"
)

// doctorCmd checks a contract file against the database and the target
// without testing anything: the file, the connection, every declared table
// and column, and one harmless call (a call without a key, which a correct
// target refuses and which writes nothing).
func doctorCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "contract file (YAML), see README.md")
	databaseURL := fs.String("database-url", "", "PostgreSQL URL of the target's database (default $DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *config == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "idemstress doctor: want --config FILE and no other arguments")
		return exitUsage
	}
	say := func(what, format string, args ...any) {
		fmt.Fprintf(stdout, "%-9s %s\n", what, fmt.Sprintf(format, args...))
	}

	c, err := stress.Load(*config)
	if err != nil {
		say("contract", "FAIL %v", err)
		return exitUsage
	}
	say("contract", "ok: %s %s, %d effect table(s)", cmp.Or(c.HTTP.Method, "POST"), c.HTTP.URL, len(c.Effects))

	url := cmp.Or(*databaseURL, c.DatabaseURL)
	if url == "" {
		say("database", "FAIL no database: pass --database-url, set DATABASE_URL, or set database_url in the contract")
		return exitUsage
	}
	pool, err := stress.Connect(ctx, url)
	if err != nil {
		say("database", "FAIL %v", err)
		return exitFor(err)
	}
	defer pool.Close()
	var version string
	if err := pool.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		say("database", "FAIL %v", err)
		return exitInconclusive
	}
	say("database", "ok: PostgreSQL %s", version)

	if err := observe.NewObserver(pool, c.Effects).Validate(ctx); err != nil {
		say("effects", "FAIL %v", err)
		return exitFor(err)
	}
	for _, e := range c.Effects {
		say("effects", "ok: %s", describeEffect(e))
	}

	tgt, err := client.NewHTTP(c.HTTP, nil)
	if err != nil {
		say("target", "FAIL %v", err)
		return exitUsage
	}
	defer tgt.CloseIdleConnections()
	return probe(ctx, c, tgt, say)
}

// probe sends the one harmless call: without a key, in a namespace of its
// own. When the contract does not require keys there is no harmless call,
// so it only says so.
func probe(ctx context.Context, c stress.Config, tgt *client.HTTP, say func(string, string, ...any)) int {
	if !c.World.KeyRequired {
		say("target", "not called: the contract does not require keys, so no call is harmless (run idemstress run)")
		return exitPass
	}
	ns := model.Namespace(fmt.Sprintf("doctor%d-", time.Now().UnixNano()))
	call := model.Call{Tenant: "A", NoKey: true}
	tag := ns.Tag(c.Contract.KeyScope, call)
	resp, err := tgt.Do(ctx, client.Request{Tenant: ns.Tenant("A"), NoKey: true, Tag: tag,
		Body: model.RenderTagged(c.Contract.Payload, tag, 0, 0)})
	if err != nil {
		say("target", "FAIL a call without a key got no answer: %v", err)
		return exitInconclusive
	}
	kind := c.Contract.Classify(true, resp.Status, resp.ID != "")
	if kind != model.Invalid {
		say("target", "FAIL a call without a key got %d (%s); the contract says invalid %v: %s",
			resp.Status, kind, c.Contract.Statuses.Invalid, strings.TrimSpace(string(resp.Body)))
		return exitViolations
	}
	say("target", "ok: a call without a key got %d (invalid, as the contract says)", resp.Status)
	return exitPass
}

func describeEffect(e observe.Effect) string {
	var by string
	switch {
	case e.Join != nil:
		by = fmt.Sprintf("rows joined by %s to %s", e.Join.Column, e.Join.Table)
	case e.Tag != "":
		by = fmt.Sprintf("rows tagged in %s", e.Tag)
	default:
		by = fmt.Sprintf("rows by tenant %s, key %s", e.Tenant, e.Key)
	}
	if e.Query != "" {
		by += " (from a query)"
	}
	if e.ID != "" {
		by += ", id " + e.ID
	}
	return e.Table + ": " + by
}
