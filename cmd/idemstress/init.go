package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/atomicfile"
	"github.com/idemstress/idemstress/internal/draft"
	"github.com/idemstress/idemstress/internal/draft/calls"
	"github.com/idemstress/idemstress/internal/draft/effects"
	"github.com/idemstress/idemstress/internal/draft/openapi"
	"github.com/idemstress/idemstress/stress"
)

// headerFlags collects repeated --header "Name: value" flags.
type headerFlags []draft.Header

func (h *headerFlags) String() string { return fmt.Sprint(*h) }
func (h *headerFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want \"Name: value\", got %q", s)
	}
	*h = append(*h, draft.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	return nil
}

// initCmd drafts a contract: the request from an OpenAPI document or the
// flags, the effect tables from one create call and the rows it wrote,
// writes it with every guess commented, and runs doctor on it.
func initCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	var o initRequest
	fs.StringVar(&o.openapi, "openapi", "", "OpenAPI 3 document of the service (YAML or JSON)")
	fs.StringVar(&o.operation, "operation", "", `the create operation in --openapi: its operationId or "METHOD PATH"`)
	fs.StringVar(&o.url, "url", "", "with --openapi: the server URL (default: the document's first); without: the request URL, {{tenant}} and {{key}} where they travel")
	fs.StringVar(&o.method, "method", "", "HTTP method without --openapi (default POST)")
	fs.Var(&o.headers, "header", `a request header template, "Name: value" ({{key}}, {{tenant}}); repeatable`)
	fs.StringVar(&o.payload, "payload", "", "the base payload as a JSON object (default: the document's example)")
	fs.StringVar(&o.body, "body", "", `how the payload is sent: "json" (default) or "form" (application/x-www-form-urlencoded)`)
	databaseURL := fs.String("database-url", "", "PostgreSQL URL of the service's database (default $DATABASE_URL)")
	out := fs.String("out", "contract.yaml", "where to write the drafted contract (never overwritten)")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 || (o.openapi == "") != (o.operation == "") || o.openapi == "" && o.url == "" {
		fmt.Fprintln(stderr, "idemstress init: want --openapi FILE --operation ID, or --url URL with --header and --payload; and no other arguments")
		return exitUsage
	}
	if o.body != "" && o.body != "json" && o.body != "form" {
		fmt.Fprintf(stderr, "idemstress init: --body %q: want json or form\n", o.body)
		return exitUsage
	}
	if info, err := os.Stat(*out); err == nil && info.Mode().IsRegular() {
		fmt.Fprintf(stderr, "idemstress init: %s exists; init never overwrites a contract (--out FILE)\n", *out)
		return exitUsage
	}
	d, err := o.draft(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "idemstress init: %v\n", err)
		return exitUsage
	}
	dbURL := cmp.Or(*databaseURL, os.Getenv("DATABASE_URL"))
	code := exitPass
	if dbURL == "" {
		d.NoDatabase()
	} else if err := initCalls(ctx, d, dbURL, stderr); err != nil {
		fmt.Fprintf(stderr, "idemstress init: %v\n", err)
		code = exitFor(err)
		if errors.Is(err, calls.ErrCall) {
			code = exitInconclusive
		}
	}
	text, err := d.Render()
	if err == nil {
		err = atomicfile.Write(*out, func(w io.Writer) error { _, err := w.Write(text); return err })
	}
	if err != nil {
		fmt.Fprintf(stderr, "idemstress init: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "idemstress init: wrote %s (%d guesses to check, %d TODOs); doctor on it:\n", *out, strings.Count(string(text), "guessed:"), len(contract.Todos(text)))
	doctorArgs := []string{"--config", *out}
	if dbURL != "" {
		doctorArgs = append(doctorArgs, "--database-url", dbURL)
	}
	return max(code, doctorCmd(ctx, doctorArgs, stdout, stderr))
}

// initRequest is what init's flags say of the request, before any call.
type initRequest struct {
	openapi, operation, url, method string
	headers                         headerFlags
	payload, body                   string
}

// draft drafts the request from the OpenAPI document or the flags, the
// flags' headers, body and payload taking the place of what the document
// says, and fills the defaults neither gave.
func (o initRequest) draft(ctx context.Context) (*draft.Draft, error) {
	d := &draft.Draft{Source: "the command line", URL: o.url, Method: o.method, Rules: map[string]any{}, Notes: map[string]string{}}
	if o.openapi != "" {
		var err error
		if d, err = openapi.Draft(ctx, o.openapi, o.operation, o.url); err != nil {
			return nil, err
		}
	}
	if err := client.CheckHost(d.URL); err != nil {
		return nil, err
	}
	for _, h := range o.headers {
		d.SetHeader(h) // in place of a drafted one: the security scheme's TODO
	}
	if o.body == "form" {
		d.Body = "form"
	}
	if o.payload != "" {
		var p map[string]any
		dec := json.NewDecoder(strings.NewReader(o.payload))
		dec.UseNumber()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("--payload: not a JSON object: %v", err)
		}
		d.Payload = p
		if d.Notes == nil {
			d.Notes = map[string]string{}
		}
		d.Notes["payload"] = "--payload"
	}
	d.Defaults()
	return d, nil
}

// initCalls makes init's calls against the service: one create, whose rows
// draft the effects, then a call per variant the draft would send.
func initCalls(ctx context.Context, d *draft.Draft, dbURL string, stderr io.Writer) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("%w: %v", stress.ErrBadURL, err)
	}
	defer pool.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	ns := fmt.Sprintf("init%d-", time.Now().UnixNano())
	a, err := effects.Observe(ctx, d, pool, client, ns)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "idemstress init: the create call was answered %d; it wrote rows in %d table(s)\n", a.Status, len(d.Effects))
	n, err := calls.Variants(ctx, d, client, ns+"p")
	fmt.Fprintf(stderr, "idemstress init: %d call(s) tried the payload's variants\n", n)
	if err != nil {
		return err
	}
	n, err = calls.Answers(ctx, d, client, ns+"r")
	if n > 0 {
		fmt.Fprintf(stderr, "idemstress init: %d call(s) asked how a replay, a changed payload and a missing key are answered\n", n)
	}
	return err
}
