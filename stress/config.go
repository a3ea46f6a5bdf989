// Package stress runs plans against a target, records what happened, asks
// checks for a verdict, and drives rapid to find and shrink a failing plan.
package stress

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Config is the one description of a run: what a contract file says (Load
// reads one into it), how hard to look, and, for Go callers, what to use
// instead of what the file would start. The CLI and a go test user run the
// same Config through Run or Check.
type Config struct {
	// Spec is what the contract says: the target, the promises, the
	// effects, the service when idemstress starts it, the faults.
	contract.Spec

	// DBProxy, when set, is the loopback address ("127.0.0.1:6543") where
	// the run puts a PostgreSQL proxy in front of DatabaseURL, for a
	// service started elsewhere: point its database URL there (the run
	// prints it) and the database faults reach it. With Process it is
	// the address the replicas' proxy listens on (default: a free port).
	DBProxy string
	// StallWait bounds how long the nemesis waits for a burst's requests to
	// block or be answered (0: dbstall.DefaultStallWait). A burst that does
	// not get there is inconclusive.
	StallWait time.Duration

	// World bounds what plans are drawn from (zero: gen.DefaultWorld):
	// how hard to look. A run narrows it by what the contract says
	// (key_required and a key in the URL's path, identity_noise, the
	// faults, the payload's variants).
	World gen.World
	// Plans is how many plans to try before calling it a pass (default 100).
	Plans int
	// Seed makes a run repeatable; 0 draws one (the result says which).
	Seed uint64
	// ShrinkTime bounds the search for a smaller failing plan of each bug
	// found (default 30s).
	ShrinkTime time.Duration
	// Workers is how many plans run at once while the search looks for a
	// failure (default 1); each has a namespace of its own. The plans
	// tried depend on Seed only, never on Workers, and shrinking runs one
	// plan at a time. Under the db-stall nemesis plans run one at a time.
	Workers int
	// MaxBugs, when set, ends the search once that many bugs are
	// reported, like go test -failfast for 1 (0: every bug the plans show).
	MaxBugs int
	// Duration, when set, ends the search when spent even if plans remain
	// (a failure found by then is still shrunk, within ShrinkTime).
	Duration time.Duration
	// Namespace starts every tenant and key the run sends (default "is").
	// The run adds a random part of its own; rows under Namespace are left
	// out of the check for changes outside the run (IDEM-009). Shards of
	// one job that run at once against one database share a Namespace, so
	// that none takes another's rows for stray writes.
	Namespace string
	// Progress, when set, is called from the run's goroutine after each
	// batch of plans and each execution while shrinking; it must return
	// quickly. nil: the run says nothing while it goes.
	Progress func(Progress)

	// Target, when set, is used instead of an HTTP target built from HTTP:
	// a client.Func for a service in the same process, or a client.HTTP of
	// your own.
	Target client.Target
	// DB, when set, reads the effect tables instead of a pool opened from
	// DatabaseURL. It is not closed by the run.
	DB *pgxpool.Pool
	// Log receives one line for each thing the run starts (a throwaway
	// database, replicas); nil discards them.
	Log io.Writer
}

// defaults fills what was left unset and refuses what cannot run, before
// anything is started. It keeps what a caller set: faults a Go caller put
// in World are planned, checked and must fire like the contract's own.
func (c *Config) defaults() error {
	if c.World.IsZero() {
		c.World = gen.DefaultWorld()
	}
	c.Faults = plannedFaults(c.Faults, c.World)
	if err := c.validate(); err != nil {
		return fmt.Errorf("%w: %w", contract.ErrContract, err)
	}
	c.World = worldOf(c.Spec, c.World)
	if c.Plans == 0 {
		c.Plans = 100
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = 30 * time.Second
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	c.Spec = c.Spec.WithDefaults()
	return nil
}

// worldOf is the generator's world of a run of contract s, the one place
// the contract's facts reach gen: the caller's bounds with what the file
// says of the calls to draw (keys required or not, the request noise that
// is part of an action's identity and never added, values another action
// holds when the contract can tell their refusal), every planned fault
// drawable (a dependency's fault once for each dependency), and only as
// many payload variants as the contract tells apart.
func worldOf(s contract.Spec, bounds gen.World) gen.World {
	w := bounds
	// key_required: false makes calls without the key creates, not
	// refusals to provoke; a key in the URL's path has no keyless form at
	// all: /tickets// is another resource, and its 404 is no bug of the
	// service's.
	w.KeyRequired = w.KeyRequired && s.KeyRequired()
	w.Keyless = (w.Keyless || s.Contract.KeylessCreates) && !s.HTTP.KeyInPath()
	if len(s.IdentityNoise) > 0 {
		w.Noise = slices.DeleteFunc(slices.Clone(w.Noise), func(n model.Noise) bool { return slices.Contains(s.IdentityNoise, n) })
	}
	// Calls that send another action's unique values need the answer
	// that refuses them.
	if len(s.Contract.Unique) > 0 && len(s.Contract.Answers.Taken) > 0 {
		w.Unique = true
	}
	w.Faults, w.StepFaults = slices.Clone(w.Faults), slices.Clone(w.StepFaults)
	for _, f := range s.Faults {
		k, _ := faultkind.KindOf(f)
		switch {
		case f == model.FaultRestart:
			w.Restart = true
		case k.Needs == faultkind.NeedsDependency && k.Scope == faultkind.AsStep:
			for _, d := range s.Process.Dependencies {
				if !slices.ContainsFunc(w.StepFaults, func(st model.Step) bool { return st.Fault == f && st.Target == d.Name }) {
					w.StepFaults = append(w.StepFaults, model.Step{Kind: model.StepFault, Fault: f, Target: d.Name})
				}
			}
		case !slices.Contains(w.Faults, f):
			w.Faults = append(w.Faults, f)
		}
	}
	// Variants that would be the same payload are one variant: a payload
	// whose only variable field is a two-member enum has two.
	w.MaxVariants = max(1, payloads.DistinctVariants(s.Contract.WithDefaults(), w.MaxVariants))
	// Only the key shapes the key's format admits are drawn; fixed
	// tenants bound how many tenants a plan has.
	if w.KeyShapes && w.Shapes == nil {
		w.Shapes = append([]byte{}, identifiers.KeyShapes(s.Contract)...) // (not nil: identifierNotes)
		w.KeyShapes = len(w.Shapes) > 0
	}
	if n := len(s.Contract.Tenants); n > 0 {
		w.MaxTenants = min(w.MaxTenants, n)
	}
	// Every rule a call can break is a refused-then-fixed sequence to send.
	w.Broken = len(payloads.Breakages(s.Contract.WithDefaults()))
	// A crash, a transient error or a lost reply is mostly followed by its
	// call's retry: what the service does then is what they test.
	w.FollowUp = true
	return w
}

// Load reads and checks a contract file (contract.Load) into a Config to
// run, its World gen.DefaultWorld (a run narrows it by what the file
// says) and the other knobs at their defaults.
func Load(path string) (Config, error) {
	s, err := contract.Load(path)
	if err != nil {
		return Config{}, err
	}
	return configOf(s), nil
}

// Parse is Load for a contract given as YAML (contract.Parse); name
// prefixes every error.
func Parse(name string, data []byte) (Config, error) {
	s, err := contract.Parse(name, data)
	if err != nil {
		return Config{}, err
	}
	return configOf(s), nil
}

func configOf(s contract.Spec) Config {
	return Config{Spec: s, World: gen.DefaultWorld()}
}

// plannedFaults is faults with those a Go caller put in the world added:
// each must be one idemstress can make happen (checkFaults) and will be
// counted as planned.
func plannedFaults(faults []model.Fault, w gen.World) []model.Fault {
	out := slices.Clone(faults)
	add := func(f model.Fault) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, f := range w.Faults {
		add(f)
	}
	if w.Restart {
		add(model.FaultRestart)
	}
	for _, s := range w.StepFaults {
		add(s.Fault)
	}
	return out
}

// MaxWorkers bounds Config.Workers: each worker holds connections to the
// service and the database, and past a few hundred a run spends its time
// queueing on them and overruns its --duration.
const MaxWorkers = 256

// validate is the one check of a description of a run set in Go (Open,
// Run, Check): what the contract says (contract.Spec.Validate, the rules
// a file is held to), then how hard to look. It refuses one that would
// get a correct service blamed or could never run; errors name the
// contract's field.
func (c *Config) validate() error {
	if c.Target == nil && c.HTTP.URL == "" {
		return fmt.Errorf("no target: set target.url in the contract (Config.HTTP.URL) or Config.Target")
	}
	if err := c.Spec.Validate(c.Target); err != nil {
		return err
	}
	world := c.World
	if world.IsZero() {
		world = gen.DefaultWorld()
	}
	if err := world.Validate(); err != nil {
		return err
	}
	switch {
	case c.Plans < 0:
		return fmt.Errorf("plans: %d; want 1 or more (0 for the default, 100)", c.Plans)
	case c.ShrinkTime < 0 || c.Duration < 0:
		return fmt.Errorf("shrink time %s, duration %s: want positive durations (0 for the defaults)", c.ShrinkTime, c.Duration)
	case strings.Trim(c.Namespace, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || len(c.Namespace) > 16:
		return fmt.Errorf("namespace %q: want at most 16 lower-case letters, digits and dashes", c.Namespace)
	case c.MaxBugs < 0:
		return fmt.Errorf("max bugs: %d; want 0 (no limit) or more", c.MaxBugs)
	case c.Workers < 0 || c.Workers > MaxWorkers:
		return fmt.Errorf("workers: %d; want 1 to %d", c.Workers, MaxWorkers)
	}
	// The run adds eight hex digits and each case its number (see Run).
	if ns := model.Namespace(c.Namespace + "00000000-1000000-"); c.Namespace != "" && !identifiers.NamespaceFits(c.Contract, ns) {
		return fmt.Errorf("namespace %q: too long for a UUID key or tenant (key_format or tenant_format uuid): a UUID holds 30 hex digits, and each namespace character other than 0-9 and a-e takes two or more; give a shorter namespace", c.Namespace)
	}
	if f := identifiers.KeyFormatOf(c.Contract); f == model.IDDNSLabel && c.Namespace != "" && c.Namespace[0] == '-' {
		return fmt.Errorf("namespace %q: a DNS label (key_format dns-label) starts with a letter or digit", c.Namespace)
	}
	return nil
}

// waitsOnLastTable reports whether fault f acts on a call once it waits on
// its write to the last effect table (crashTable).
func waitsOnLastTable(f model.Fault) bool {
	k, _ := faultkind.KindOf(f)
	return k.AtWrite
}

// needsProxy reports whether fault f is done through the fault proxy in
// front of each replica: the proxy's own faults, and the crash after the
// commit, whose answer the proxy withholds.
func needsProxy(f model.Fault) bool {
	k, _ := faultkind.KindOf(f)
	return k.Proxy
}
