package contract

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
	"github.com/idemstress/idemstress/internal/model/reference"
	"github.com/idemstress/idemstress/internal/process"
)

// Spec is what a contract file says: the target, what the service
// promises, the tables and receivers one action writes, the service and
// its dependencies when idemstress starts them, and the faults plans may
// carry. Load and Parse read one; a Go caller may fill one in and run it
// as the Spec of a stress.Config.
type Spec struct {
	// HTTP is how a call reaches the service: the contract's target.
	HTTP client.HTTPSpec
	// Contract is what the service promises: statuses, payload,
	// equivalence, key scope.
	Contract model.Contract
	// Effects are the tables one action writes.
	Effects []effect.Effect
	// Sinks are the receivers idemstress runs for the service's
	// deliveries (webhooks): effects beyond the database, counted per
	// action like rows.
	Sinks []effect.Sink
	// DatabaseURL is where the effect tables are. Empty with Process set:
	// a throwaway PostgreSQL is started and its URL handed to the service.
	DatabaseURL string
	// Process, when set, is how idemstress starts the service itself (and
	// its replicas); calls then go to what was started. Its replicas are
	// handed the database through a PostgreSQL proxy ({database_url}).
	Process *process.Spec
	// Sync is how a burst is released (default client.LastByte).
	Sync client.SyncMode
	// DBStall names an effect table to hold write-locked while each burst
	// is released (the db-stall nemesis); "" for none.
	DBStall string
	// KeyTable names the table where the service keeps its own key
	// records (idempotency_keys), for the crash-key-record fault.
	KeyTable string
	// Faults are the faults plans may carry (contract: `faults:`):
	// model.ProxyFaults need an HTTP target, model.ProcessFaults a service
	// that idemstress starts (Process). Every planned fault must fire, or
	// the case is inconclusive.
	Faults []model.Fault
	// IdentityNoise is request noise that is part of an action's identity
	// (identity_noise): plans never add it to a call.
	IdentityNoise []model.Noise
}

// WithDefaults is s with what was left unset filled in: the contract's
// defaults, the key column's template (the key as the target sends it)
// and the burst release. It expects a Spec that Validate took.
func (s Spec) WithDefaults() Spec {
	s.Contract = s.Contract.WithDefaults()
	if s.Contract.KeyTemplate == "" {
		// The key column holds the key as the template sends it.
		s.Contract.KeyTemplate = identifiers.KeyTemplateOf(append(s.HTTP.KeyValues(), identifiers.PayloadKeyStrings(s.Contract)...))
	}
	s.Sync, _ = client.ParseSyncMode(string(s.Sync)) // Validate refused a bad one
	return s
}

// Validate is the one check of what a contract says, whether it came from
// a file (Parse, which prefixes the file's name) or was set in Go
// (stress.Open, Run, Check): the same rules and the same words for both.
// It refuses a Spec that would get a correct service blamed or could
// never run; errors name the contract's field. target is the Go caller's
// own target (stress.Config.Target), nil when calls go to HTTP.
func (s *Spec) Validate(target client.Target) error {
	if err := s.check(target); err != nil {
		return err
	}
	if _, err := client.ParseSyncMode(string(s.Sync)); err != nil {
		return err
	}
	return identifiers.Validate(s.Contract)
}

// check is Validate's part about what the contract promises and where.
func (s *Spec) check(target client.Target) error {
	if err := reference.CheckAnswers(s.Contract.WithDefaults()); err != nil {
		return err
	}
	if err := payloads.CheckUnique(s.Contract); err != nil {
		return err
	}
	if s.Process != nil {
		if err := s.Process.Check(); err != nil {
			return err
		}
	}
	if target == nil {
		if err := s.checkHTTP(); err != nil {
			return err
		}
	}
	if err := effect.ValidateEffects(s.Effects); err != nil {
		return err
	}
	if err := s.checkSinks(); err != nil {
		return err
	}
	if err := s.checkFaults(target); err != nil {
		return err
	}
	if err := payloads.CheckFields(s.Contract); err != nil {
		return fmt.Errorf("payload_rules%s", strings.TrimPrefix(err.Error(), "fields"))
	}
	// A field pointer that names nothing in the payload would compare every
	// stored value with "" and cry wolf (IDEM-010).
	base := payloads.Render(s.Contract.WithDefaults(), "", 0, 0)
	for i, e := range s.Effects {
		for _, col := range slices.Sorted(maps.Keys(e.Fields)) {
			if _, ok := payloads.Pointer(base, e.Fields[col]); !ok {
				return fmt.Errorf("effects[%d].fields.%s: %q points at nothing in the payload %s", i, col, e.Fields[col], base)
			}
		}
	}
	return nil
}

// checkHTTP refuses a target template that could not be sent, or that
// never sends what names an action.
func (s *Spec) checkHTTP() error {
	if _, err := client.NewHTTP(s.HTTP, nil); err != nil {
		return err
	}
	if strings.Contains(s.HTTP.URL, "{port}") && s.Process == nil {
		return fmt.Errorf("target.url %q: {port} is filled in only when a process: section starts the service; write the port the service listens on", s.HTTP.URL)
	}
	if s.HTTP.Timeout < 0 {
		return fmt.Errorf("target.timeout: %s; want a positive duration such as 10s", s.HTTP.Timeout)
	}
	// A template that never sends what names the action would have a
	// correct service blamed for every answer.
	c := s.Contract.WithDefaults()
	if !s.HTTP.Sends("key") && !payloads.Carries(c, "key") {
		return fmt.Errorf("target: no {{key}} in target.url, target.headers or the payload, so no call would carry its idempotency key; add e.g. Idempotency-Key: \"{{key}}\" under target.headers, or idempotency_key: \"{{key}}\" to the payload")
	}
	if c.KeyScope == model.KeyScopeTenant && !s.HTTP.Sends("tenant") && !payloads.Carries(c, "tenant") {
		return fmt.Errorf("target: no {{tenant}} in target.url, target.headers or the payload while key_scope is tenant, so the service could not tell tenants apart; send it (e.g. X-Tenant: \"{{tenant}}\" under target.headers, a path segment or a payload field) or set key_scope: global")
	}
	return nil
}

// checkSinks refuses a sink whose fields point at nothing in the payload,
// or that the service could never be told about.
func (s *Spec) checkSinks() error {
	if err := effect.ValidateSinks(s.Sinks); err != nil {
		return err
	}
	base := payloads.Render(s.Contract.WithDefaults(), "", 0, 0)
	for i, k := range s.Sinks {
		for _, body := range slices.Sorted(maps.Keys(k.Fields)) {
			if _, ok := payloads.Pointer(base, k.Fields[body]); !ok {
				return fmt.Errorf("sinks[%d].fields.%s: %q points at nothing in the payload %s", i, body, k.Fields[body], base)
			}
		}
		if k.Redis != nil {
			if err := s.checkRedisSink(i, k); err != nil {
				return err
			}
			continue
		}
		if s.Process == nil && k.Addr == "" {
			return fmt.Errorf("sinks[%d] (%s): idemstress does not start the service, so it cannot hand it %s; "+
				"give addr: 127.0.0.1:PORT and point the service's deliveries there", i, k.Name, k.Placeholder())
		}
	}
	return nil
}

// checkRedisSink checks that sink i's Redis is a dependency idemstress
// starts, so that it can read it.
func (s *Spec) checkRedisSink(i int, k effect.Sink) error {
	dep := k.Redis.Dependency
	if s.Process == nil || !slices.ContainsFunc(s.Process.Dependencies, func(d process.DependencySpec) bool { return d.Name == dep }) {
		var names []string
		if s.Process != nil {
			for _, d := range s.Process.Dependencies {
				names = append(names, d.Name)
			}
		}
		return fmt.Errorf("sinks[%d].redis.dependency (%s): %q is no dependency idemstress starts (process.dependencies: %q); "+
			"declare the Redis the service publishes to there, so that idemstress can read its %s", i, k.Name, dep, names, k.Redis.Kind())
	}
	return nil
}

// checkFaults refuses faults idemstress cannot make happen: a fault that
// can never fire would leave every case inconclusive. What each kind needs
// is its entry of model's registry (model.FaultKind).
func (s *Spec) checkFaults(target client.Target) error {
	for _, f := range s.Faults {
		k, ok := faultkind.KindOf(f)
		switch {
		case !ok:
			return fmt.Errorf("faults: %q; want some of %s", f, faultNames(faultkind.PlannedFaults))
		case k.Needs == faultkind.NeedsService && s.Process == nil:
			return fmt.Errorf("faults: %s needs a process section: idemstress restarts and crashes only a service it starts itself", f)
		case k.Needs == faultkind.NeedsDependency && (s.Process == nil || len(s.Process.Dependencies) == 0):
			return fmt.Errorf("faults: %s needs process.dependencies: idemstress restarts and crashes only a dependency it starts itself", f)
		case k.Replicas > 1 && (s.Process == nil || s.Process.Replicas < k.Replicas):
			return fmt.Errorf("faults: %s needs process.replicas of %d or more: the retry goes to another replica while one is held", f, k.Replicas)
		case k.Proxy && target != nil && !isHTTP(target):
			return fmt.Errorf("faults: %s needs an HTTP target: it is done through the fault proxy between idemstress and the service", f)
		case k.Lease && s.Contract.Lease <= 0:
			return fmt.Errorf("faults: %s needs lease: the service's in-progress lease, which the original is held past while its retry arrives", f)
		case k.KeyTable && s.KeyTable == "":
			return fmt.Errorf("faults: %s needs key_table: the table where the service keeps its own key records, whose write it interrupts", f)
		case k.AtWrite && s.CrashTable() == "":
			return fmt.Errorf("faults: %s needs an effect table (not a query) whose write it interrupts", f)
		}
	}
	return nil
}

func isHTTP(t client.Target) bool {
	_, ok := t.(*client.HTTP)
	return ok
}

// KeyRequired reports whether a call without its key is one the service
// must refuse, which a run sends to see it refused: key_required (the
// default), unless the key travels in target.url's path, where a call
// cannot leave it out (/tickets/ is another resource, and its 404 no bug
// of the service's).
func (s Spec) KeyRequired() bool { return !s.Contract.KeylessCreates && !s.HTTP.KeyInPath() }

// CrashTable is the table a crash's call waits on when the replica is
// killed: the last effect table the contract lists (the outbox after the
// ticket), so that the kill lands between the action's writes.
func (s Spec) CrashTable() string {
	for i := len(s.Effects) - 1; i >= 0; i-- {
		if s.Effects[i].Query == "" {
			return s.Effects[i].Table
		}
	}
	return ""
}

// QueryAfterCrashTable is the run's note when a fault that lands at the
// write to the last effect table is planned and effects given by a query
// come after that table: their rows are never cut off from the table's,
// which no output would otherwise say. "" when there is nothing to say.
func (s Spec) QueryAfterCrashTable() string {
	atWrite := func(f model.Fault) bool {
		k, _ := faultkind.KindOf(f)
		return k.AtWrite
	}
	table := s.CrashTable()
	i := slices.IndexFunc(s.Effects, func(e effect.Effect) bool { return e.Query == "" && e.Table == table })
	if table == "" || i == len(s.Effects)-1 || !slices.ContainsFunc(s.Faults, atWrite) {
		return ""
	}
	var after []string
	for _, e := range s.Effects[i+1:] {
		after = append(after, e.Table)
	}
	landing := slices.DeleteFunc(slices.Clone(s.Faults), func(f model.Fault) bool { return !atWrite(f) })
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
