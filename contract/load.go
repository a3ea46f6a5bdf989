package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/boundedfile"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/redact"
)

// contractFile is the YAML form; docs/contract.md documents it field by field.
type contractFile struct {
	Target   client.HTTPSpec `yaml:"target"`
	Payload  map[string]any  `yaml:"payload"`
	Statuses *model.Statuses `yaml:"statuses"`
	// Answers: matchers per outcome (status plus body conditions); see answers.go.
	Answers     *answersFile `yaml:"answers"`
	Equivalence string       `yaml:"equivalence"`
	KeyScope    string       `yaml:"key_scope"`
	KeyRequired *bool        `yaml:"key_required"`
	// ServerErrors: "may-have-effects" (default) or "no-effects".
	ServerErrors string `yaml:"server_errors"`
	// Errors: "not-stored" (default: a retry after a transient error is
	// executed afresh) or "stored" (the error is replayed).
	Errors string `yaml:"errors"`
	// Recovery bounds how long an action may answer in_flight after its
	// calls are gone (liveness, IDEM-012).
	Recovery *time.Duration `yaml:"recovery"`
	// Lease: the service's in-progress lease, after which a retry may take
	// over an unfinished original (slow-original); absent: no lease.
	Lease       *time.Duration  `yaml:"lease"`
	DatabaseURL string          `yaml:"database_url"`
	Effects     []effect.Effect `yaml:"effects"`
	// Sinks are effects beyond the database: receivers of the service's webhooks.
	Sinks []effect.Sink `yaml:"sinks"`
	// Process: idemstress starts the service (command, replicas).
	Process *process.Spec `yaml:"process"`
	// Sync: "lastbyte" (default) or "naive".
	Sync string `yaml:"sync"`
	// DBStall: an effect table to hold write-locked while bursts are released.
	DBStall string `yaml:"db_stall"`
	// KeyTable: the service's own table of key records (crash-key-record).
	KeyTable string `yaml:"key_table"`
	// PayloadRules: how variants change payload fields, by JSON pointer.
	PayloadRules map[string]payloadRule `yaml:"payload_rules"`
	// Numbers: "strict" (default: integers are re-encoded only as
	// integers) or "loose" (the service reads every number as a float).
	Numbers string `yaml:"numbers"`
	// KeyCompare: how the service compares keys; KeyMaxLen the longest.
	KeyCompare string `yaml:"key_compare"`
	KeyMaxLen  *int   `yaml:"key_max_len"`
	// IdentityNoise: request noise that IS part of an action's identity.
	IdentityNoise []string `yaml:"identity_noise"`
	// Faults: what plans may do to calls and processes on purpose.
	Faults []model.Fault `yaml:"faults"`

	// ChangedPayload: the fingerprint policy, "conflict" (default: a
	// changed payload under a used key is refused) or "replayed" (it is
	// answered as the original).
	ChangedPayload string `yaml:"changed_payload"`

	// Unique: payload pointers of fields the service keeps unique across
	// actions beside the key; answers.taken reads its refusal.
	Unique []string `yaml:"unique"`
	// Identifiers the API constrains: the keys' format (any, uuid, word,
	// dns-label) or an RE2 pattern, fixed tenant values or the generated
	// tenants' format or pattern, and the action tag's alphabet.
	KeyFormat     string   `yaml:"key_format"`
	KeyPattern    string   `yaml:"key_pattern"`
	Tenants       []string `yaml:"tenants"`
	TenantFormat  string   `yaml:"tenant_format"`
	TenantPattern string   `yaml:"tenant_pattern"`
	TagFormat     string   `yaml:"tag_format"`
	// Refusals: "not-stored" (default: a call refused for breaking a
	// payload rule leaves its key unused), "stored" (the refusal is
	// saved and replayed) or "untested" (no such call is sent).
	Refusals string `yaml:"refusals"`
}

// payloadRule is a payload_rules entry: the word fixed, or a mapping of
// enum, int, number and max_len.
type payloadRule struct{ model.FieldRule }

func (r *payloadRule) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if n.Value != "fixed" {
			return fmt.Errorf("line %d: payload rule %q: want fixed, or a mapping of enum, int, number, max_len or required", n.Line, n.Value)
		}
		r.Fixed = true
		return nil
	}
	var f struct {
		Fixed  bool         `yaml:"fixed"`
		Enum   []any        `yaml:"enum"`
		Int    *model.Range `yaml:"int"`
		Number *model.Range `yaml:"number"`
		MaxLen int          `yaml:"max_len"`
		// Required: the service refuses a payload without the field.
		Required bool `yaml:"required"`
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "fixed", "enum", "max_len", "required":
		case "int", "number":
			if err := rangeKeys(k, n.Content[i+1]); err != nil {
				return err
			}
		default:
			return fmt.Errorf("line %d: payload rule: unknown field %q (want fixed, enum, int, number, max_len or required)", n.Content[i].Line, k)
		}
	}
	if err := n.Decode(&f); err != nil {
		return err
	}
	r.FieldRule = model.FieldRule{Fixed: f.Fixed, Enum: f.Enum, Int: f.Int, Number: f.Number, MaxLen: f.MaxLen, Required: f.Required}
	return nil
}

// rangeKeys refuses a range of a payload rule with a key other than min
// and max: {mn: 1, max: 5} would silently be min 0.
func rangeKeys(rule string, n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nil // the decoder says what it wants
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "min" && k != "max" {
			return fmt.Errorf("line %d: payload rule: %s: unknown field %q (want min and max)", n.Content[i].Line, rule, k)
		}
	}
	return nil
}

// ErrContract marks a mistake in the description of a run: the contract
// file, or what a caller set in Config or by flag (exit code 2).
var ErrContract = errors.New("contract error")

// Load reads and checks a contract file. DATABASE_URL in the environment,
// when set, wins over the file's database_url (a flag may win over both:
// set DatabaseURL after Load).
func Load(path string) (Spec, error) {
	data, err := boundedfile.Read(context.Background(), path, maxContract, "a contract file (a few KiB of YAML)")
	if err != nil {
		return Spec{}, fmt.Errorf("%w: %v", ErrContract, err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return Spec{}, err
	}
	if url := os.Getenv("DATABASE_URL"); url != "" {
		c.DatabaseURL = url
	}
	return c, nil
}

// maxKeyLen bounds key_max_len: a key travels in a header line, which
// nginx and Apache refuse past 8 KiB and Node past 16 KiB; 64 KiB leaves
// room for a key in the body, and a 1 GB key is never built.
const maxKeyLen = 64 << 10

// maxWait bounds lease and recovery: a fault waits them out, a lease while
// holding a lock on the service's table, so a run must not hang for hours.
const maxWait = 10 * time.Minute

// maxContract bounds a contract file: a real one is a few KiB, and a path
// such as /dev/zero must not be read until memory runs out.
const maxContract = 1 << 20

// Parse checks a contract given as YAML and returns the Spec it
// describes; name prefixes every error.
func Parse(name string, data []byte) (Spec, error) {
	fail := func(err error) (Spec, error) {
		return Spec{}, fmt.Errorf("%w: %s: %v", ErrContract, name, err)
	}
	f, err := decode(data)
	if err != nil {
		return fail(err)
	}
	c, err := f.spec()
	if err != nil {
		return fail(err)
	}
	if t, set := explicitTimeout(data); set && t <= 0 {
		return fail(fmt.Errorf("target.timeout: %s; want a positive duration such as 10s (leave it out for the default, %s)", t, client.DefaultTimeout))
	}
	if err := c.Validate(nil); err != nil {
		return fail(err)
	}
	return c, nil
}

// decode reads the one YAML document of a contract strictly (no unknown
// field, no TODO left by init), its errors quoting the offending line.
func decode(data []byte) (*contractFile, error) {
	if todos := Todos(data); len(todos) > 0 {
		return nil, errors.New(todos[0])
	}
	var f contractFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty file; see docs/contract.md for the contract format")
		}
		// A quoted line may hold a database URL.
		return nil, errors.New(redact.String(yamlError(err, data)))
	}
	if err := oneDocument(dec); err != nil {
		return nil, errors.New(redact.String(err.Error()))
	}
	if err := zeroPerAction(data); err != nil {
		return nil, err
	}
	return &f, nil
}

// spec is the Spec the decoded file describes, its fields checked in turn.
func (f *contractFile) spec() (Spec, error) {
	c := Spec{HTTP: f.Target, Contract: model.DefaultContract(), Effects: f.Effects, Sinks: f.Sinks, DatabaseURL: f.DatabaseURL}
	if f.Payload != nil {
		c.Contract.Payload = f.Payload
	}
	for _, read := range []func(*Spec) error{f.statuses, f.keys, f.behaviour, f.rest} {
		if err := read(&c); err != nil {
			return Spec{}, err
		}
	}
	return c, nil
}

// statuses reads statuses: and answers:.
func (f *contractFile) statuses(c *Spec) error {
	if f.Statuses != nil {
		if f.Statuses.Conflict != nil && len(f.Statuses.Conflict) == 0 && f.ChangedPayload != "replayed" {
			// Every changed payload would be judged as an answer outside the contract.
			return fmt.Errorf("statuses.conflict: empty; list the status the service answers a reused key with a changed payload (IETF draft: 422), or leave it out for that default")
		}
		if f.Statuses.Conflict != nil {
			c.Contract.Statuses.Conflict = f.Statuses.Conflict
		}
		if f.Statuses.InFlight != nil {
			c.Contract.Statuses.InFlight = f.Statuses.InFlight
		}
		if f.Statuses.Invalid != nil {
			c.Contract.Statuses.Invalid = f.Statuses.Invalid
		}
	}
	answers, err := f.Answers.answers(f.Statuses)
	if err != nil {
		return err
	}
	c.Contract.Answers = answers
	return nil
}

// keys reads how keys are scoped, required, compared and bounded, which
// request noise is part of identity, and the payload's rules.
func (f *contractFile) keys(c *Spec) error {
	switch model.Equivalence(f.Equivalence) {
	case "":
	case model.EquivalenceCanonicalJSON, model.EquivalenceBytes:
		c.Contract.Equivalence = model.Equivalence(f.Equivalence)
	default:
		return fmt.Errorf("equivalence: %q; want %q or %q", f.Equivalence, model.EquivalenceCanonicalJSON, model.EquivalenceBytes)
	}
	switch model.KeyScope(f.KeyScope) {
	case "":
	case model.KeyScopeTenant, model.KeyScopeGlobal:
		c.Contract.KeyScope = model.KeyScope(f.KeyScope)
	default:
		return fmt.Errorf("key_scope: %q; want %q or %q", f.KeyScope, model.KeyScopeTenant, model.KeyScopeGlobal)
	}
	if f.KeyRequired != nil {
		c.Contract.KeylessCreates = !*f.KeyRequired
	}
	switch model.KeyCompare(f.KeyCompare) {
	case "":
	case model.KeyCompareExact, model.KeyCompareTrim, model.KeyCompareCaseInsensitive:
		c.Contract.KeyCompare = model.KeyCompare(f.KeyCompare)
	default:
		return fmt.Errorf("key_compare: %q; want %q (the default), %q or %q", f.KeyCompare, model.KeyCompareExact, model.KeyCompareTrim, model.KeyCompareCaseInsensitive)
	}
	if f.KeyMaxLen != nil {
		if *f.KeyMaxLen < 16 || *f.KeyMaxLen > maxKeyLen {
			return fmt.Errorf("key_max_len: %d; want 16 to %d (a namespaced key needs room; a header line past 8 KiB is refused by most servers, 64 KiB by nearly all)", *f.KeyMaxLen, maxKeyLen)
		}
		c.Contract.KeyMaxLen = *f.KeyMaxLen
	}
	for _, name := range f.IdentityNoise {
		n, ok := model.ParseNoise(name)
		if !ok {
			return fmt.Errorf("identity_noise: %q; want query, trace or header-case", name)
		}
		if !slices.Contains(c.IdentityNoise, n) {
			c.IdentityNoise = append(c.IdentityNoise, n)
		}
	}
	if len(f.PayloadRules) > 0 {
		c.Contract.Fields = map[string]model.FieldRule{}
		for ptr, r := range f.PayloadRules {
			c.Contract.Fields[ptr] = r.FieldRule
		}
	}
	return nil
}

// behaviour reads what the service does with numbers, errors, leases and
// changed payloads.
func (f *contractFile) behaviour(c *Spec) error {
	switch f.Numbers {
	case "", "strict":
	case "loose":
		c.Contract.LooseNumbers = true
	default:
		return fmt.Errorf("numbers: %q; want \"strict\" (the default: an integer is re-encoded only as an integer) or \"loose\" (the service reads every number as a float, so 3 may be sent as 3.0)", f.Numbers)
	}
	switch f.ServerErrors {
	case "", "may-have-effects":
	case "no-effects":
		c.Contract.ServerErrorsLeaveNoEffects = true
	default:
		return fmt.Errorf("server_errors: %q; want \"may-have-effects\" (a 5xx is an unknown outcome) or \"no-effects\"", f.ServerErrors)
	}
	switch f.Errors {
	case "", "not-stored":
	case "stored":
		c.Contract.ErrorsStored = true
	default:
		return fmt.Errorf("errors: %q; want \"not-stored\" (the default: a retry after a transient error is executed afresh) or \"stored\" (the service stores the error under the key and replays it)", f.Errors)
	}
	if f.Recovery != nil {
		if *f.Recovery <= 0 || *f.Recovery > maxWait {
			return fmt.Errorf("recovery: %s; want a positive duration up to %s, such as 5s", *f.Recovery, maxWait)
		}
		c.Contract.Recovery = *f.Recovery
	}
	if f.Lease != nil {
		if *f.Lease <= 0 || *f.Lease > maxWait {
			return fmt.Errorf("lease: %s; want a positive duration up to %s, such as 30s (leave it out for a service whose key is held until its original ends)", *f.Lease, maxWait)
		}
		c.Contract.Lease = *f.Lease
	}
	switch f.ChangedPayload {
	case "", "conflict":
	case "replayed":
		c.Contract.ChangedReplayed = true
		if f.Statuses == nil || f.Statuses.Conflict == nil {
			// No answer means "changed payload" then: the IETF default's
			// 422 would take a validation error's status (Kubernetes).
			c.Contract.Statuses.Conflict = []int{}
		}
	default:
		return fmt.Errorf("changed_payload: %q; want \"conflict\" (the default: a changed payload under a used key is refused) or \"replayed\" (it is answered as the original, with its ID: GoCardless, Google's requestId, a Kubernetes name)", f.ChangedPayload)
	}
	return nil
}

// rest reads the identifiers' formats, refusals, how bursts are released,
// the process and the faults, and requires the target's URL and ID.
func (f *contractFile) rest(c *Spec) error {
	c.Contract.Unique = f.Unique
	c.Contract.KeyFormat, c.Contract.KeyPattern = model.IDFormat(f.KeyFormat), f.KeyPattern
	c.Contract.Tenants, c.Contract.TenantFormat, c.Contract.TenantPattern = f.Tenants, model.IDFormat(f.TenantFormat), f.TenantPattern
	c.Contract.TagFormat = model.IDFormat(f.TagFormat)
	switch r := model.Refusals(f.Refusals); r {
	case "", model.RefusalsNotStored:
	case model.RefusalsStored, model.RefusalsUntested:
		c.Contract.Refusals = r
	default:
		return fmt.Errorf("refusals: %q; want \"not-stored\" (the default: a call refused for breaking a payload rule leaves its key unused), \"stored\" (the service saves the refusal under the key and replays it) or \"untested\" (send no call that breaks a rule)", f.Refusals)
	}
	sync, err := client.ParseSyncMode(f.Sync)
	if err != nil {
		return fmt.Errorf("sync: %q; want \"lastbyte\" (the default) or \"naive\"", f.Sync)
	}
	c.Sync, c.DBStall, c.KeyTable, c.Process, c.Faults = sync, f.DBStall, f.KeyTable, f.Process, f.Faults
	if f.Target.URL == "" {
		return fmt.Errorf("target.url: missing")
	}
	if f.Target.ID == "" {
		return fmt.Errorf("target.id: missing; a JSON pointer to the resource ID in the answer (e.g. /id) or \"location\"")
	}
	return nil
}

// explicitTimeout reads target.timeout as written, to tell "0s" from a
// timeout left out (both decode to 0).
func explicitTimeout(data []byte) (time.Duration, bool) {
	var raw struct {
		Target struct {
			Timeout *time.Duration `yaml:"timeout"`
		} `yaml:"target"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil || raw.Target.Timeout == nil {
		return 0, false
	}
	return *raw.Target.Timeout, true
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
		text, block := sub[2], ""
		if te == nil {
			// A syntax error is reported where its block starts.
			if at, ok := problemLine(data, n, text); ok && at != n {
				block = fmt.Sprintf(" (in the block that starts on line %d)", n)
				n = at
			}
		}
		if strings.HasPrefix(text, "field ") && strings.Contains(text, " not found in type ") {
			text = "unknown field " + strconv.Quote(strings.Fields(text)[1]) + " (see docs/contract.md for the fields)"
		}
		if n >= 1 && n <= len(lines) {
			text += fmt.Sprintf(" in %q", strings.TrimSpace(lines[n-1]))
		}
		msgs[i] = fmt.Sprintf("line %d: %s%s", n, text, block)
	}
	return strings.Join(msgs, "; ")
}
