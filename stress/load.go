package stress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/observe"
	"github.com/idemstress/idemstress/process"
)

// Contract is a contract file: how to call the target, what it promises,
// and which tables hold its effects.
type Contract struct {
	Target  client.HTTPSpec
	Model   model.Contract
	Effects []observe.Effect
	// KeyRequired: calls without a key must be answered invalid.
	KeyRequired bool
	// DatabaseURL is where the effect tables are ("" : give it by flag or
	// DATABASE_URL).
	DatabaseURL string
	// Process, when set, is how idemstress starts the service itself.
	Process *process.Spec
	// Sync is how bursts are released; DBStall the table the db-stall
	// nemesis locks ("" for none).
	Sync    client.SyncMode
	DBStall string
}

// contractFile is the YAML form; README.md documents it field by field.
type contractFile struct {
	Target      client.HTTPSpec `yaml:"target"`
	Payload     map[string]any  `yaml:"payload"`
	Statuses    *model.Statuses `yaml:"statuses"`
	Equivalence string          `yaml:"equivalence"`
	KeyScope    string          `yaml:"key_scope"`
	KeyRequired *bool           `yaml:"key_required"`
	// ServerErrors: "may-have-effects" (default) or "no-effects".
	ServerErrors string `yaml:"server_errors"`
	// Recovery bounds how long an action may answer in_flight after its
	// calls are gone (liveness, IDEM-012).
	Recovery    *time.Duration   `yaml:"recovery"`
	DatabaseURL string           `yaml:"database_url"`
	Effects     []observe.Effect `yaml:"effects"`
	// Process: idemstress starts the service (command, replicas).
	Process *process.Spec `yaml:"process"`
	// Sync: "lastbyte" (default) or "naive".
	Sync string `yaml:"sync"`
	// DBStall: an effect table to hold write-locked while bursts are released.
	DBStall string `yaml:"db_stall"`
}

// ErrContract marks an error in a contract file (exit code 2).
var ErrContract = errors.New("contract error")

// LoadContract reads and checks a contract file.
func LoadContract(path string) (*Contract, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrContract, err)
	}
	return ParseContract(path, data)
}

// ParseContract checks a contract given as YAML; name prefixes every error.
func ParseContract(name string, data []byte) (*Contract, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrContract, name, fmt.Sprintf(format, args...))
	}
	var f contractFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail("empty file; see README.md for the contract format")
		}
		return nil, fail("%s", yamlError(err, data))
	}
	def := model.DefaultContract()
	c := &Contract{Target: f.Target, Model: def, Effects: f.Effects, KeyRequired: true, DatabaseURL: f.DatabaseURL}
	if f.Payload != nil {
		c.Model.Payload = f.Payload
	}
	if f.Statuses != nil {
		if f.Statuses.Conflict != nil {
			c.Model.Statuses.Conflict = f.Statuses.Conflict
		}
		if f.Statuses.InFlight != nil {
			c.Model.Statuses.InFlight = f.Statuses.InFlight
		}
		if f.Statuses.Invalid != nil {
			c.Model.Statuses.Invalid = f.Statuses.Invalid
		}
	}
	if err := disjoint(c.Model.Statuses); err != nil {
		return nil, fail("statuses: %v", err)
	}
	switch model.Equivalence(f.Equivalence) {
	case "":
	case model.EquivalenceCanonicalJSON, model.EquivalenceBytes:
		c.Model.Equivalence = model.Equivalence(f.Equivalence)
	default:
		return nil, fail("equivalence: %q; want %q or %q", f.Equivalence, model.EquivalenceCanonicalJSON, model.EquivalenceBytes)
	}
	switch model.KeyScope(f.KeyScope) {
	case "":
	case model.KeyScopeTenant, model.KeyScopeGlobal:
		c.Model.KeyScope = model.KeyScope(f.KeyScope)
	default:
		return nil, fail("key_scope: %q; want %q or %q", f.KeyScope, model.KeyScopeTenant, model.KeyScopeGlobal)
	}
	if f.KeyRequired != nil {
		c.KeyRequired = *f.KeyRequired
	}
	switch f.ServerErrors {
	case "", "may-have-effects":
	case "no-effects":
		c.Model.ServerErrorsLeaveNoEffects = true
	default:
		return nil, fail("server_errors: %q; want \"may-have-effects\" (a 5xx is an unknown outcome) or \"no-effects\"", f.ServerErrors)
	}
	if f.Recovery != nil {
		if *f.Recovery <= 0 {
			return nil, fail("recovery: %s; want a positive duration such as 5s", *f.Recovery)
		}
		c.Model.Recovery = *f.Recovery
	}
	sync, err := client.ParseSyncMode(f.Sync)
	if err != nil {
		return nil, fail("sync: %q; want \"lastbyte\" (the default) or \"naive\"", f.Sync)
	}
	c.Sync, c.DBStall, c.Process = sync, f.DBStall, f.Process
	if f.DBStall != "" && !slices.ContainsFunc(f.Effects, func(e observe.Effect) bool { return e.Table == f.DBStall && e.Query == "" }) {
		return nil, fail("db_stall: %q is not a declared effect table", f.DBStall)
	}
	if f.Process != nil && len(f.Process.Command) == 0 {
		return nil, fail("process.command: missing; the service's argv, e.g. [./svc, -listen, \"127.0.0.1:{port}\"]")
	}
	if f.Process != nil && f.Process.Replicas < 0 {
		return nil, fail("process.replicas: %d; want 1 or more", f.Process.Replicas)
	}
	if f.Target.URL == "" {
		return nil, fail("client.url: missing")
	}
	if f.Target.ID == "" {
		return nil, fail("client.id: missing; a JSON pointer to the resource ID in the answer (e.g. /id) or \"location\"")
	}
	if _, err := client.NewHTTP(f.Target, nil); err != nil {
		return nil, fail("%v", err)
	}
	if err := observe.ValidateEffects(f.Effects); err != nil {
		return nil, fail("%v", err)
	}
	// A field pointer that names nothing in the payload would compare every
	// stored value with "" and cry wolf (IDEM-010).
	base := model.RenderPayload(c.Model.Payload, 0, 0)
	for i, e := range f.Effects {
		for _, col := range slices.Sorted(maps.Keys(e.Fields)) {
			if _, ok := model.Pointer(base, e.Fields[col]); !ok {
				return nil, fail("effects[%d].fields.%s: %q points at nothing in the payload %s", i, col, e.Fields[col], base)
			}
		}
	}
	return c, nil
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlError turns the YAML library's errors into one line that quotes the
// offending line of the file, so the field is named even where the library
// only gives a line number.
func yamlError(err error, data []byte) string {
	msgs := []string{err.Error()}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	lines := strings.Split(string(data), "\n")
	for i, m := range msgs {
		sub := yamlLine.FindStringSubmatch(strings.TrimSpace(m))
		if sub == nil {
			continue
		}
		n, _ := strconv.Atoi(sub[1])
		text := sub[2]
		if strings.HasPrefix(text, "field ") && strings.Contains(text, " not found in type ") {
			text = "unknown field " + strconv.Quote(strings.Fields(text)[1]) + " (see README.md for the fields)"
		}
		if n >= 1 && n <= len(lines) {
			text += fmt.Sprintf(" in %q", strings.TrimSpace(lines[n-1]))
		}
		msgs[i] = fmt.Sprintf("line %d: %s", n, text)
	}
	return strings.Join(msgs, "; ")
}

// disjoint reports a status given to two kinds of refusal (an answer
// would be read as the first kind and misjudged) or a 2xx given to one.
func disjoint(st model.Statuses) error {
	seen := map[int]string{}
	for _, kind := range []struct {
		name  string
		codes []int
	}{{"conflict", st.Conflict}, {"in_flight", st.InFlight}, {"invalid", st.Invalid}} {
		for _, code := range kind.codes {
			if code < 300 || code > 599 {
				return fmt.Errorf("%s: %d is not an error status (want 3xx–5xx)", kind.name, code)
			}
			if other, ok := seen[code]; ok && other != kind.name {
				return fmt.Errorf("%d is given to both %s and %s; each status means one thing", code, other, kind.name)
			}
			seen[code] = kind.name
		}
	}
	return nil
}
