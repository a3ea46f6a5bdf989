// Package model holds idemstress's vocabulary (actions, calls, steps, plans,
// outcomes, histories), the contract a target promises, and the reference
// model that says which answers a correct target may give. It is pure: no
// I/O, no clocks, no goroutines. A Go caller meets its types only as values
// (stress.Config's fields, a failure's plan and history), never by name:
// docs/layout.md, "One home per type", says why.
package model

import (
	"fmt"
	"strings"
)

// Action is one intended business action. Tenants and keys are logical names
// ("A", "k1"); a Namespace turns them into the strings sent to the target.
type Action struct {
	Tenant string `json:"tenant"`
	Key    string `json:"key"`
}

// String shows the action as its calls show it: its key as sent ("A/K1"
// for the key that differs from k1 by case), never the logical name.
func (a Action) String() string { return a.Tenant + "/" + KeyLabel(a.Key) }

// Call is one attempt at an action.
type Call struct {
	Tenant string `json:"tenant"`
	Key    string `json:"key"`
	// NoKey sends the call without an idempotency key: a correct target
	// answers invalid and writes nothing.
	NoKey bool `json:"no_key,omitempty"`
	// Variant selects the payload: calls with the same variant carry
	// equivalent payloads, different variants carry different ones.
	Variant int `json:"variant"`
	// Encoding selects one of several byte encodings of the same payload
	// (key order, whitespace, string escapes), all canonical-JSON equal.
	Encoding int `json:"encoding,omitempty"`
	// Noise is what a real client's retry adds that must not change the
	// call's identity: NoiseQuery, NoiseTrace or NoiseHeaderCase (0: none).
	Noise Noise `json:"noise,omitempty"`
	Fault Fault `json:"fault,omitempty"`
	// Point is where in the call's database work a fault that lands at a
	// point of it (FaultCrashAt) lands: "before statement 2", "after
	// statement 2", "before commit 1", "after commit 1", "after tx 1"
	// (between the first and the second transaction). The points are
	// learned from the service's unfaulted calls (gen.World.Points).
	// For a fault that names its failure (FaultKind.Coded: db-error) it
	// is that failure's SQLSTATE: "40001", "40P01", "57P01", or "08006"
	// for a cut connection ("": 57P01, what db-error always dealt); for
	// dep-error the dependency and its failure: "redis OOM", "redis cut".
	Point string `json:"point,omitempty"`
	// UniqueOf is the logical key of another action of the call's tenant
	// whose unique values (Contract.Unique) the call sends instead of its
	// own: while that action holds them, the call must be refused as
	// taken, with no effect. "" (the default): the call's own values.
	UniqueOf string `json:"unique_of,omitempty"`
	// Broken makes the call break one of the contract's payload rules
	// (the Broken-th of Contract.Breakages, from 1; 0: none): a correct
	// service refuses it, and what the refusal does to the key is the
	// contract's refusals: policy.
	Broken int `json:"broken,omitempty"`
}

// Noise is request noise: what a client adds to a retry that is not part
// of the action (unless the contract says it is).
type Noise int

const (
	// NoiseNone: the request as the template makes it.
	NoiseNone Noise = iota
	// NoiseQuery: an extra query parameter (?trace=…).
	NoiseQuery
	// NoiseTrace: tracing headers (traceparent, X-Request-Id).
	NoiseTrace
	// NoiseHeaderCase: header names in another letter case.
	NoiseHeaderCase
	// NumNoise counts the kinds of noise, none included.
	NumNoise
)

// noiseNames are the contract's names of the noise kinds.
var noiseNames = [...]string{"", "query", "trace", "header-case"}

func (n Noise) String() string {
	if n < 0 || int(n) >= len(noiseNames) {
		return fmt.Sprintf("noise%d", int(n))
	}
	return noiseNames[n]
}

// ParseNoise reads a noise kind by its contract name.
func ParseNoise(name string) (Noise, bool) {
	for i, n := range noiseNames {
		if n == name && i > 0 {
			return Noise(i), true
		}
	}
	return NoiseNone, false
}

// Action is the action this call attempts.
func (c Call) Action() Action { return Action{Tenant: c.Tenant, Key: c.Key} }

// String renders a call the one way idemstress shows a call everywhere:
// "A/k1 v0" is tenant A, key k1, payload variant 0; "e2" after the variant
// marks a re-encoding of the same payload; "A/(no key) v0" a call sent
// without its key; a key in another shape is shown as sent ("k1␠", "K1");
// request noise follows with a plus ("A/k1 v0 +query"), another action's
// unique values after an at sign ("A/k2 v0 @k1"), a broken payload rule
// with an exclamation mark ("A/k1 v0 !broken", "!broken2" for the second
// of the contract's breakages), a planned fault in brackets ("A/k1 v0
// [lose-reply]", "A/k1 v0 [crash-at after tx 1]" with its point, "A/k1 v0
// [db-error 40001]" with its failure).
func (c Call) String() string {
	key := KeyLabel(c.Key)
	if c.NoKey {
		key = "(no key)"
	}
	s := fmt.Sprintf("%s/%s v%d", c.Tenant, key, c.Variant)
	if c.Encoding != 0 {
		s += fmt.Sprintf("e%d", c.Encoding)
	}
	if c.Noise != NoiseNone {
		s += " +" + c.Noise.String()
	}
	if c.UniqueOf != "" {
		// "A/k2 v0 @k1": k2's call with k1's unique values.
		s += " @" + KeyLabel(c.UniqueOf)
	}
	switch {
	case c.Broken == 1:
		s += " !broken"
	case c.Broken > 1:
		s += fmt.Sprintf(" !broken%d", c.Broken)
	}
	if c.Fault != FaultNone {
		s += " [" + strings.TrimSpace(string(c.Fault)+" "+c.Point) + "]"
	}
	return s
}

// stepKind names what a step does.
type stepKind string

const (
	// StepCall sends one call and waits for its answer.
	StepCall stepKind = "call"
	// StepBurst releases its calls at the same instant and waits for all
	// their answers.
	StepBurst stepKind = "burst"
	// StepRestart restarts every replica gracefully (stop, start, ready),
	// or starts again one that a crash left down; it has no calls.
	StepRestart stepKind = "restart"
	// StepFault is a nemesis operation of its own, with no calls: Fault
	// says which (a fault kind of scope AsStep, e.g. dep-restart), Target
	// what it acts on (a dependency's name).
	StepFault stepKind = "fault"
)

// Step is one unit of a plan.
type Step struct {
	Kind  stepKind `json:"kind"`
	Calls []Call   `json:"calls,omitempty"`
	// Fault and Target are a StepFault's fault and what it acts on.
	Fault  Fault  `json:"fault,omitempty"`
	Target string `json:"target,omitempty"`
}

// Plan is an ordered list of steps: data that can be saved, replayed and shrunk.
type Plan struct {
	Steps []Step `json:"steps"`
}

// NumCalls counts the calls of all steps.
func (p Plan) NumCalls() int {
	n := 0
	for _, s := range p.Steps {
		n += len(s.Calls)
	}
	return n
}

// String renders the step: "call A/k1 v0", "burst A/k1 v0 | A/k1 v0e1",
// "restart", "dep-restart redis".
func (s Step) String() string {
	if s.Kind == StepFault {
		// "dep-restart redis": the fault names the step.
		return strings.TrimSpace(string(s.Fault) + " " + s.Target)
	}
	if len(s.Calls) == 0 {
		return string(s.Kind)
	}
	calls := make([]string, len(s.Calls))
	for j, c := range s.Calls {
		calls[j] = c.String()
	}
	return string(s.Kind) + " " + strings.Join(calls, " | ")
}

// String renders the plan one step a line, e.g. "1. call A/k1 v0".
func (p Plan) String() string {
	var b strings.Builder
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	return b.String()
}

// Compact renders the plan on one line: steps separated by "; ", a single
// call without its kind ("A/k1 v0; burst A/k1 v0 | A/k1 v0").
func (p Plan) Compact() string {
	steps := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		steps[i] = s.String()
		if s.Kind == StepCall {
			steps[i] = strings.TrimPrefix(steps[i], string(StepCall)+" ")
		}
	}
	return strings.Join(steps, "; ")
}
