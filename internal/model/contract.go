package model

import "time"

// Equivalence names how two payloads are compared.
type Equivalence string

const (
	// EquivalenceCanonicalJSON: key order, whitespace and string escapes do not matter.
	EquivalenceCanonicalJSON Equivalence = "canonical-json"
	// EquivalenceBytes: payloads must be byte-for-byte equal.
	EquivalenceBytes Equivalence = "bytes"
)

// KeyScope names what makes two calls the same action.
type KeyScope string

const (
	// KeyScopeTenant: an action is (tenant, key); tenants never share keys.
	KeyScopeTenant KeyScope = "tenant"
	// KeyScopeGlobal: an action is the key alone.
	KeyScopeGlobal KeyScope = "global"
)

// Statuses are the HTTP statuses the contract gives to each kind of refusal.
type Statuses struct {
	Conflict []int `yaml:"conflict" json:"conflict"`
	InFlight []int `yaml:"in_flight" json:"in_flight"`
	Invalid  []int `yaml:"invalid" json:"invalid"`
}

// Contract is what the target promises, as far as the reference model needs it.
type Contract struct {
	// Statuses is the shorthand for refusals told apart by status alone.
	Statuses Statuses
	// Answers are the matchers of each outcome (status plus body
	// conditions, and where an ok answer's ID is); an outcome with none
	// falls back on Statuses, created on any 2xx with an ID. Left out of
	// JSON when empty, so that a contract without answers: keeps the
	// digest its case files were written with.
	Answers     Answers `json:",omitzero"`
	Equivalence Equivalence
	KeyScope    KeyScope
	// Payload is the base payload; variants and encodings derive from it.
	Payload map[string]any
	// Fields says, by JSON pointer, how variants change a field of the
	// payload (none: strings get a suffix, numbers a step).
	Fields map[string]FieldRule
	// LooseNumbers: the service decodes every number as a float (JavaScript,
	// Python), so re-encodings may write an integer as 3.0. Without it an
	// integer is only re-encoded as an integer, except under a number rule.
	LooseNumbers bool
	// KeyCompare is how the service compares keys (default exact).
	KeyCompare KeyCompare
	// KeyMaxLen is the longest key the service takes (default 255).
	KeyMaxLen int
	// ServerErrorsLeaveNoEffects: the target promises a 5xx never leaves
	// effects, so such a call is judged as certainly without effect rather
	// than unknown (stricter, and cheaper to check).
	ServerErrorsLeaveNoEffects bool
	// Recovery is how long after the calls of an action are gone (answered,
	// or unanswered since a crash) its retries may still answer in_flight.
	Recovery time.Duration
	// ErrorsStored: the service stores an error answer under its key and
	// replays it to every retry (Stripe v1 replays a saved 5xx), where by
	// default (false, `errors: not-stored`) a retry after a transient
	// failure is executed afresh. Left out of JSON when false, so that a
	// contract without errors: keeps the digest its case files were
	// written with.
	ErrorsStored bool `json:",omitempty"`
	// Lease is the service's documented in-progress lease: how long an
	// unfinished original holds its key before a retry may take it over
	// (0: no lease, the key is held until the original ends). The
	// slow-original fault holds an original past it. A takeover that
	// executes the action again is still a duplicate (IDEM-001). Left out
	// of JSON when 0, so that a contract without lease: keeps the digest
	// its case files were written with.
	Lease time.Duration `json:",omitempty"`

	// KeylessCreates (key_required: false): a call without the key is an
	// ordinary create, an action of its own and never a replay of
	// anything: answered ok with a new ID, it writes one complete effect
	// set. By default (false) it must be answered invalid and leave
	// nothing. Left out of JSON when false, so that a contract that
	// requires the key keeps the digest its case files were written with.
	KeylessCreates bool `json:",omitempty"`
	// ChangedReplayed is the fingerprint policy `changed_payload:
	// replayed`: the service keeps no fingerprint of the payload and
	// answers every later call with the key as the original, whatever its
	// body (GoCardless, Google's requestId, a Kubernetes name). A changed
	// payload must then get an ok answer with the original's ID, no new
	// effect, and the stored fields stay the first payload's; a conflict
	// for it is a wrong answer. By default (false, `changed_payload:
	// conflict`: IETF, Stripe, Square) a changed payload must be refused
	// as conflict. Left out of JSON when false, so that a contract
	// without changed_payload: keeps the digest its case files were
	// written with.
	ChangedReplayed bool `json:",omitempty"`

	// Unique are payload pointers of string fields whose values the
	// service keeps unique across actions beside the key (a Compute
	// instance's name beside its requestId). Each action sends its own
	// value (see Render); a call with UniqueOf sends another action's,
	// and must get the Taken refusal while that action holds it. Left out
	// of JSON when empty, so that a contract without unique: keeps the
	// digest its case files were written with.
	Unique []string `json:",omitempty"`
	// Identifiers the API constrains (see idformat.go). Each is left out
	// of JSON when unset, so that a contract without them keeps the digest
	// its case files were written with.
	//
	// KeyFormat is the form every key must have (default IDAny);
	// KeyPattern, an RE2 expression a whole key must match, is the
	// alternative: keys are then made in the first format whose keys match.
	KeyFormat  IDFormat `json:",omitempty"`
	KeyPattern string   `json:",omitempty"`
	// Tenants are fixed tenant values that exist in the service: logical
	// tenant A is sent as Tenants[0], B as Tenants[1]... The namespace is
	// then carried by the key (and the tag) alone. None: tenants are
	// generated, in TenantFormat or matching TenantPattern.
	Tenants       []string `json:",omitempty"`
	TenantFormat  IDFormat `json:",omitempty"`
	TenantPattern string   `json:",omitempty"`
	// TagFormat is the alphabet of the action tag, for a tag that stands
	// in a constrained field: IDAny (default), IDWord or IDDNSLabel.
	TagFormat IDFormat `json:",omitempty"`
	// Refusals is what a call refused for its input (a payload that
	// breaks a rule of Fields) does to its key: "" or RefusalsNotStored
	// (the key stays unused), RefusalsStored (the refusal is saved and
	// replayed), RefusalsUntested (no such call is sent). Left out of
	// JSON when "", so that a contract without refusals: keeps the digest
	// its case files were written with.
	Refusals Refusals `json:",omitempty"`

	// KeyTemplate is the value the key travels in, "order-{{key}}": a
	// header value, a path segment, a query parameter's value or a payload
	// string holding {{key}} (see KeyTemplateOf). The service receives, and
	// so stores in the key column, this value rendered; "" is "{{key}}",
	// the key alone. Left out of JSON when "", so that digests stay.
	KeyTemplate string `json:",omitempty"`
	// breaking is the breakage Render applies (see Breaking); 0: none.
	breaking int
}

// DefaultContract follows the IETF Idempotency-Key draft: 422 for a changed
// payload, 409 while in flight, 400 for a missing key, canonical JSON, keys
// scoped per tenant.
func DefaultContract() Contract {
	return Contract{
		Statuses:    Statuses{Conflict: []int{422}, InFlight: []int{409}, Invalid: []int{400}},
		Equivalence: EquivalenceCanonicalJSON,
		KeyScope:    KeyScopeTenant,
		Payload:     map[string]any{"subject": "Printer offline"},
		Recovery:    5 * time.Second,
		KeyCompare:  KeyCompareExact,
	}
}

// WithDefaults fills every field left at its zero value from
// DefaultContract, so a contract built in Go with only some fields set
// judges like one read from a file (an empty status list would make every
// refusal an answer outside the contract).
func (c Contract) WithDefaults() Contract {
	d := DefaultContract()
	if c.Statuses.Conflict == nil {
		c.Statuses.Conflict = d.Statuses.Conflict
	}
	if c.Statuses.InFlight == nil {
		c.Statuses.InFlight = d.Statuses.InFlight
	}
	if c.Statuses.Invalid == nil {
		c.Statuses.Invalid = d.Statuses.Invalid
	}
	if c.Equivalence == "" {
		c.Equivalence = d.Equivalence
	}
	if c.KeyScope == "" {
		c.KeyScope = d.KeyScope
	}
	if c.Payload == nil {
		c.Payload = d.Payload
	}
	if c.Recovery == 0 {
		c.Recovery = d.Recovery
	}
	if c.KeyCompare == "" {
		c.KeyCompare = KeyCompareExact
	}
	return c
}

// ActionOf is the action a call belongs to under the contract's key scope.
func (c Contract) ActionOf(call Call) Action {
	a := Action{Tenant: call.Tenant, Key: c.FoldKey(call.Key)}
	if c.KeyScope == KeyScopeGlobal {
		a.Tenant = ""
	}
	return a
}
