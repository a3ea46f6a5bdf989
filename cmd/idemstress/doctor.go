package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/reference"
	"github.com/idemstress/idemstress/internal/observe"
	"github.com/idemstress/idemstress/stress"
)

// doctorCmd checks a contract file against the database and the service
// without testing anything: the file, the connection, every declared table
// and column (after starting the service and a throwaway database when the
// contract says idemstress starts it), then two calls in a namespace of
// their own: one without a key, which a correct service refuses and which
// writes nothing, and one with a key, whose answer must carry the ID where
// the contract says and whose rows must be found where the contract says.
func doctorCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	var src sourceFlags
	src.register(fs)
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return parseExit(err)
	}
	if src.config == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "idemstress doctor: want --config FILE and no other arguments")
		return exitUsage
	}
	var r doctorReport
	defer r.write(stdout, src.config)
	say := r.say
	cfg, err := stress.Load(src.config)
	if err != nil {
		say("contract", "FAIL %v", err)
		return exitUsage
	}
	say("contract", "ok: %s %s, %d effect table(s)", cmp.Or(cfg.HTTP.Method, "POST"), cfg.HTTP.URL, len(cfg.Effects))
	cfg.DatabaseURL = cmp.Or(src.databaseURL, cfg.DatabaseURL)
	cfg.Log = stderr
	session, err := stress.Open(ctx, cfg)
	if err != nil {
		say(stage(err), "FAIL %v", err)
		return exitFor(err)
	}
	defer session.Close()
	var version string
	if err := session.DB().QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		say("database", "FAIL %v", err)
		return exitInconclusive
	}
	say("database", "ok: PostgreSQL %s", version)
	for _, e := range cfg.Effects {
		say("effects", "ok: %s", describeEffect(e))
	}
	// Advice only: a missing index makes runs slower, not wrong.
	for _, a := range session.Indexes(ctx) {
		say("index", "%s", a)
	}
	return probe(ctx, cfg, session, say)
}

// doctorReport holds doctor's lines until the verdict: doctor reads
// top-down, its first line saying what to fix first (the first FAIL, which
// the order of the checks makes the root cause), or that the contract is
// ready to run.
type doctorReport struct {
	lines []string
	fix   string
}

// say adds a line about what (contract, database, …); a message that
// begins "FAIL " is the fix when it is the first.
func (r *doctorReport) say(what, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if rest, ok := strings.CutPrefix(msg, "FAIL "); ok && r.fix == "" {
		r.fix = what + ": " + rest
	}
	r.lines = append(r.lines, fmt.Sprintf("%-9s %s\n", what, msg))
}

// write prints the verdict, then the lines.
func (r *doctorReport) write(w io.Writer, config string) {
	if r.fix != "" {
		fmt.Fprintf(w, "fix first: %s\n", r.fix)
	} else {
		fmt.Fprintf(w, "ok: ready to run: idemstress run --config %s\n", config)
	}
	for _, l := range r.lines {
		fmt.Fprint(w, l)
	}
}

// stage names what failed to open: the database, the effect tables, the
// contract, or the service.
func stage(err error) string {
	switch {
	case errors.Is(err, observe.ErrSchema):
		return "effects"
	case errors.Is(err, stress.ErrBadURL), errors.Is(err, stress.ErrDatabaseUnreachable):
		return "database"
	case errors.Is(err, contract.ErrContract):
		return "contract"
	}
	return "service"
}

// probe makes doctor's two calls, each in a namespace of its own, and judges
// them like any plan: one create with a key, then a keyless call (when the
// contract requires keys). The call with a key comes first: when it
// cannot create, the keyless call's verdict is a consequence (a wrong path
// fails both), and the root cause leads the FAIL lines.
func probe(ctx context.Context, cfg stress.Config, s *stress.Session, say func(string, string, ...any)) int {
	ns := fmt.Sprintf("doctor%d-", time.Now().UnixNano())
	if !identifiers.NamespaceFits(cfg.Contract, model.Namespace(ns+"nokey-")) {
		ns = fmt.Sprintf("dr%08x-", uint32(time.Now().UnixNano())) // a UUID holds 30 hex digits
	}
	one := func(c model.Call) model.Plan {
		return model.Plan{Steps: []model.Step{{Kind: model.StepCall, Calls: []model.Call{c}}}}
	}
	code := probeKey(ctx, cfg, s, say, model.Namespace(ns+"key-"), one(model.Call{Tenant: "A", Key: "k1"}))
	if code == exitInconclusive || code == exitUsage {
		return code
	}
	if !cfg.KeyRequired() {
		say("target", "no call without a key: the contract does not require keys, or they travel in target.url's path")
		return code
	}
	tr, err := s.Try(ctx, model.Namespace(ns+"nokey-"), one(model.Call{Tenant: "A", NoKey: true}), time.Now())
	if err != nil {
		say("target", "FAIL a call without a key got no answer: %v", err)
		return exitInconclusive
	}
	out := tr.History.Ops[0].Out
	switch {
	case out.Kind != model.Invalid:
		say("target", "FAIL a call without a key got %d (%s); the contract says invalid is %s: %s",
			out.Status, out.Kind, reference.Expected(cfg.Contract, "invalid"), out.Body)
		code = max(code, exitViolations)
	case len(tr.Violations) > 0:
		for _, v := range tr.Violations {
			say("target", "FAIL a call without a key: %s (%s)", v.Message, v.Detail)
		}
		code = max(code, exitViolations)
	default:
		say("target", "ok: a call without a key got %d (invalid, as the contract says) and wrote nothing", out.Status)
	}
	return code
}

// probeKey makes doctor's create with a key and says what it got.
func probeKey(ctx context.Context, cfg stress.Config, s *stress.Session, say func(string, string, ...any), ns model.Namespace, plan model.Plan) int {
	tr, err := s.Try(ctx, ns, plan, time.Now())
	if err != nil {
		say("target", "FAIL a call with a key got no answer: %v", err)
		return exitInconclusive
	}
	out := tr.History.Ops[0].Out
	switch {
	case out.Kind == model.Other && reference.Read(cfg.Contract, model.Answer{Status: out.Status, Body: out.Body}).MissingID():
		say("target", "FAIL target.id %q: a call with a key got %d, with no ID there: %s", cfg.HTTP.ID, out.Status, out.Body)
		return exitUsage
	case out.Kind != model.OK && out.Status >= 400 && out.Status < 500:
		// An API may refuse the request for its identifiers alone.
		c, call := cfg.Contract, plan.Steps[0].Calls[0]
		say("target", "FAIL a call with a key got %s: %s (it sent the key %q and the tenant %q: if the API constrains identifiers, say how with key_format or key_pattern, and tenants or tenant_format)",
			out, out.Body, identifiers.SentKey(c, ns, call.Key), identifiers.SentTenant(c, ns, call.Tenant))
		return exitViolations
	case out.Kind != model.OK:
		say("target", "FAIL a call with a key got %s: %s", out, out.Body)
		return exitViolations
	case len(tr.Violations) > 0:
		for _, v := range tr.Violations {
			say("target", "FAIL a call with a key: %s (%s)", v.Message, v.Detail)
		}
		return exitViolations
	}
	say("target", "ok: a call with a key got %d with id %s, and its rows were found in every effect table", out.Status, out.ID)
	return exitPass
}

func describeEffect(e effect.Effect) string {
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
