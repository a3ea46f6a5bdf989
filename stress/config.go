// Package stress runs plans against a target, records what happened, asks
// checks for a verdict, and drives rapid to find and shrink a failing plan.
package stress

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
)

// Config is the one description of a run: what a contract file says (Load
// reads one into it), how hard to look, and, for Go callers, what to use
// instead of what the file would start. The CLI and a go test user run the
// same Config through Run or Check.
type Config struct {
	// HTTP is how a call reaches the service: the contract's target.
	HTTP client.HTTPSpec
	// Contract is what the service promises: statuses, payload,
	// equivalence, key scope.
	Contract model.Contract
	// Effects are the tables one action writes.
	Effects []model.Effect
	// Sinks are the receivers idemstress runs for the service's
	// deliveries (webhooks): effects beyond the database, counted per
	// action like rows.
	Sinks []model.Sink
	// DatabaseURL is where the effect tables are. Empty with Process set:
	// a throwaway PostgreSQL is started and its URL handed to the service.
	DatabaseURL string
	// Process, when set, is how idemstress starts the service itself (and
	// its replicas); calls then go to what was started. Its replicas are
	// handed the database through a PostgreSQL proxy ({database_url}).
	Process *process.Spec
	// DBProxy, when set, is the loopback address ("127.0.0.1:6543") where
	// the run puts a PostgreSQL proxy in front of DatabaseURL, for a
	// service started elsewhere: point its database URL there (the run
	// prints it) and the database faults reach it. With Process it is
	// the address the replicas' proxy listens on (default: a free port).
	DBProxy string
	// Sync is how a burst is released (default client.LastByte).
	Sync client.SyncMode
	// DBStall names an effect table to hold write-locked while each burst
	// is released (the db-stall nemesis); "" for none.
	DBStall string
	// KeyTable names the table where the service keeps its own key
	// records (idempotency_keys), for the crash-key-record fault.
	KeyTable string
	// StallWait bounds how long the nemesis waits for a burst's requests to
	// block or be answered (0: fault.DefaultStallWait). A burst that does
	// not get there is inconclusive.
	StallWait time.Duration
	// Faults are the faults plans may carry (contract: `faults:`):
	// model.ProxyFaults need an HTTP target, model.ProcessFaults a service
	// that idemstress starts (Process). Every planned fault must fire, or
	// the case is inconclusive.
	Faults []model.Fault

	// World bounds what plans are drawn from (zero: gen.DefaultWorld). The
	// contract's key_required is World.KeyRequired.
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
		return fmt.Errorf("%w: %w", ErrContract, err)
	}
	c.World = c.world()
	if c.Plans == 0 {
		c.Plans = 100
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = 30 * time.Second
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	c.Contract = c.Contract.WithDefaults()
	if c.Contract.KeyTemplate == "" {
		// The key column holds the key as the template sends it.
		c.Contract.KeyTemplate = model.KeyTemplateOf(append(c.HTTP.KeyValues(), c.Contract.PayloadKeyStrings()...))
	}
	c.Sync, _ = client.ParseSyncMode(string(c.Sync)) // validate refused a bad one
	return nil
}

// world is the generator's world the contract describes, the one place
// its facts reach gen: the caller's bounds (World) with every planned
// fault (Faults) drawable, a dependency's fault once for each dependency,
// and only as many payload variants as the contract tells apart.
func (c *Config) world() gen.World {
	w := c.World
	if c.Contract.KeylessCreates {
		// key_required: false: calls without the key are creates, not
		// refusals to provoke.
		w.KeyRequired, w.Keyless = false, true
	}
	w.Faults, w.StepFaults = slices.Clone(w.Faults), slices.Clone(w.StepFaults)
	for _, f := range c.Faults {
		k, _ := model.KindOf(f)
		switch {
		case f == model.FaultRestart:
			w.Restart = true
		case k.Needs == model.NeedsDependency:
			for _, d := range c.Process.Dependencies {
				if !slices.ContainsFunc(w.StepFaults, func(s model.Step) bool { return s.Fault == f && s.Target == d.Name }) {
					w.StepFaults = append(w.StepFaults, model.Step{Kind: model.StepFault, Fault: f, Target: d.Name})
				}
			}
		case !slices.Contains(w.Faults, f):
			w.Faults = append(w.Faults, f)
		}
	}
	// Variants that would be the same payload are one variant: a payload
	// whose only variable field is a two-member enum has two.
	w.MaxVariants = max(1, c.Contract.WithDefaults().DistinctVariants(w.MaxVariants))
	// Only the key shapes the key's format admits are drawn; fixed
	// tenants bound how many tenants a plan has.
	if w.KeyShapes && w.Shapes == nil {
		w.Shapes = append([]byte{}, c.Contract.KeyShapes()...) // (not nil: identifierNotes)
		w.KeyShapes = len(w.Shapes) > 0
	}
	if n := len(c.Contract.Tenants); n > 0 {
		w.MaxTenants = min(w.MaxTenants, n)
	}
	// Every rule a call can break is a refused-then-fixed sequence to send.
	w.Broken = len(c.Contract.WithDefaults().Breakages())
	// A crash, a transient error or a lost reply is mostly followed by its
	// call's retry: what the service does then is what they test.
	w.FollowUp = true
	return w
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

// validate is the one check of a description of a run, whether it came
// from a file (Parse, which prefixes the file's name) or was set in Go
// (Open, Run, Check): the same rules and the same words for both. It
// refuses one that would get a correct service blamed or could never
// run; errors name the contract's field.
func (c *Config) validate() error {
	if c.Target == nil && c.HTTP.URL == "" {
		return fmt.Errorf("no target: set target.url in the contract (Config.HTTP.URL) or Config.Target")
	}
	if err := c.check(); err != nil {
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
	if _, err := client.ParseSyncMode(string(c.Sync)); err != nil {
		return err
	}
	return c.validateIdentifiers()
}

// validateIdentifiers refuses identifier fields that say something
// impossible, and a configured namespace too long for a UUID.
func (c *Config) validateIdentifiers() error {
	if err := c.Contract.ValidateIdentifiers(); err != nil {
		return err
	}
	// The run adds eight hex digits and each case its number (see Run).
	if ns := model.Namespace(c.Namespace + "00000000-1000000-"); c.Namespace != "" && !c.Contract.NamespaceFits(ns) {
		return fmt.Errorf("namespace %q: too long for a UUID key or tenant (key_format or tenant_format uuid): a UUID holds 30 hex digits, and each namespace character other than 0-9 and a-e takes two or more; give a shorter namespace", c.Namespace)
	}
	if f := c.Contract.KeyFormatOf(); f == model.IDDNSLabel && c.Namespace != "" && c.Namespace[0] == '-' {
		return fmt.Errorf("namespace %q: a DNS label (key_format dns-label) starts with a letter or digit", c.Namespace)
	}
	return nil
}

// checkFaults refuses faults idemstress cannot make happen: a fault that
// can never fire would leave every case inconclusive. What each kind needs
// is its entry of model's registry (model.FaultKind).
func (c *Config) checkFaults() error {
	for _, f := range c.Faults {
		k, ok := model.KindOf(f)
		switch {
		case !ok:
			return fmt.Errorf("faults: %q; want some of %s", f, faultNames(model.PlannedFaults))
		case k.Needs == model.NeedsService && c.Process == nil:
			return fmt.Errorf("faults: %s needs a process section: idemstress restarts and crashes only a service it starts itself", f)
		case k.Needs == model.NeedsDependency && (c.Process == nil || len(c.Process.Dependencies) == 0):
			return fmt.Errorf("faults: %s needs process.dependencies: idemstress restarts and crashes only a dependency it starts itself", f)
		case k.Replicas > 1 && (c.Process == nil || c.Process.Replicas < k.Replicas):
			return fmt.Errorf("faults: %s needs process.replicas of %d or more: the retry goes to another replica while one is held", f, k.Replicas)
		case k.Proxy && c.Target != nil && !isHTTP(c.Target):
			return fmt.Errorf("faults: %s needs an HTTP target: it is done through the fault proxy between idemstress and the service", f)
		case k.Lease && c.Contract.Lease <= 0:
			return fmt.Errorf("faults: %s needs lease: the service's in-progress lease, which the original is held past while its retry arrives", f)
		case k.KeyTable && c.KeyTable == "":
			return fmt.Errorf("faults: %s needs key_table: the table where the service keeps its own key records, whose write it interrupts", f)
		case k.AtWrite && crashTable(c.Effects) == "":
			return fmt.Errorf("faults: %s needs an effect table (not a query) whose write it interrupts", f)
		}
	}
	return nil
}

// waitsOnLastTable reports whether fault f acts on a call once it waits on
// its write to the last effect table (crashTable).
func waitsOnLastTable(f model.Fault) bool {
	k, _ := model.KindOf(f)
	return k.AtWrite
}

// needsProxy reports whether fault f is done through the fault proxy in
// front of each replica: the proxy's own faults, and the crash after the
// commit, whose answer the proxy withholds.
func needsProxy(f model.Fault) bool {
	k, _ := model.KindOf(f)
	return k.Proxy
}

func isHTTP(t client.Target) bool {
	_, ok := t.(*client.HTTP)
	return ok
}

// crashTable is the table a crash's call waits on when the replica is
// killed: the last effect table the contract lists (the outbox after the
// ticket), so that the kill lands between the action's writes.
func crashTable(effects []model.Effect) string {
	for i := len(effects) - 1; i >= 0; i-- {
		if effects[i].Query == "" {
			return effects[i].Table
		}
	}
	return ""
}

// queryAfterCrashTable is the run's note when a fault that lands at the
// write to the last effect table is planned and effects given by a query
// come after that table: their rows are never cut off from the table's,
// which no output would otherwise say.
func queryAfterCrashTable(faults []model.Fault, effects []model.Effect) string {
	table := crashTable(effects)
	i := slices.IndexFunc(effects, func(e model.Effect) bool { return e.Query == "" && e.Table == table })
	if table == "" || i == len(effects)-1 || !slices.ContainsFunc(faults, waitsOnLastTable) {
		return ""
	}
	var after []string
	for _, e := range effects[i+1:] {
		after = append(after, e.Table)
	}
	landing := slices.DeleteFunc(slices.Clone(faults), func(f model.Fault) bool { return !waitsOnLastTable(f) })
	verb := "land"
	if len(landing) == 1 {
		verb = "lands"
	}
	return fmt.Sprintf("%s %s at the write to %s, the last effect given as a table; "+
		"the rows of %s (a query) are never cut off from it: list the effect written last as a table to reach that point", faultNames(landing), verb, table, strings.Join(after, ", "))
}

func faultNames(fs []model.Fault) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// check is validate's part about what the contract says.
func (c *Config) check() error {
	if err := c.Contract.WithDefaults().CheckAnswers(); err != nil {
		return err
	}
	if err := c.Contract.CheckUnique(); err != nil {
		return err
	}
	if c.Process != nil {
		if err := c.Process.Check(); err != nil {
			return err
		}
	}
	if c.Target == nil {
		if _, err := client.NewHTTP(c.HTTP, nil); err != nil {
			return err
		}
		if strings.Contains(c.HTTP.URL, "{port}") && c.Process == nil {
			return fmt.Errorf("target.url %q: {port} is filled in only when a process: section starts the service; write the port the service listens on", c.HTTP.URL)
		}
		if c.HTTP.Timeout < 0 {
			return fmt.Errorf("target.timeout: %s; want a positive duration such as 10s", c.HTTP.Timeout)
		}
		// A template that never sends what names the action would have a
		// correct service blamed for every answer.
		contract := c.Contract.WithDefaults()
		if !c.HTTP.Sends("key") && !contract.Carries("key") {
			return fmt.Errorf("target: no {{key}} in target.url, target.headers or the payload, so no call would carry its idempotency key; add e.g. Idempotency-Key: \"{{key}}\" under target.headers, or idempotency_key: \"{{key}}\" to the payload")
		}
		if contract.KeyScope == model.KeyScopeTenant && !c.HTTP.Sends("tenant") && !contract.Carries("tenant") {
			return fmt.Errorf("target: no {{tenant}} in target.url, target.headers or the payload while key_scope is tenant, so the service could not tell tenants apart; send it (e.g. X-Tenant: \"{{tenant}}\" under target.headers, a path segment or a payload field) or set key_scope: global")
		}
	}
	if err := model.ValidateEffects(c.Effects); err != nil {
		return err
	}
	if err := c.checkSinks(); err != nil {
		return err
	}
	if err := c.checkFaults(); err != nil {
		return err
	}
	if err := c.Contract.CheckFields(); err != nil {
		return fmt.Errorf("payload_rules%s", strings.TrimPrefix(err.Error(), "fields"))
	}
	// A field pointer that names nothing in the payload would compare every
	// stored value with "" and cry wolf (IDEM-010).
	base := c.Contract.WithDefaults().Render("", 0, 0)
	for i, e := range c.Effects {
		for _, col := range slices.Sorted(maps.Keys(e.Fields)) {
			if _, ok := model.Pointer(base, e.Fields[col]); !ok {
				return fmt.Errorf("effects[%d].fields.%s: %q points at nothing in the payload %s", i, col, e.Fields[col], base)
			}
		}
	}
	return nil
}
