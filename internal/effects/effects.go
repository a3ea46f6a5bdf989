// Package effects holds the checks of an action's effects: the rows it
// committed and the events its sinks received, each attributed to the
// action it belongs to and judged against what the action's answers
// promised (the ok IDs, whether it may exist, the payloads that may have
// won). It judges plain data and reads nothing itself. It does not judge
// the answers (package checks does, with the reference model and
// internal/linear), and it names no check of the catalogue: each finding
// has a Kind, which package checks maps to its check.
package effects

import (
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// Input is what the effect checks read of a plan's execution: the
// contract, the declared effects and sinks, the plan's namespace, the
// history (its deliveries and replica stops) and the committed rows. It
// has checks.Input's fields, so that package converts one to the other.
type Input struct {
	Contract model.Contract
	Effects  []effect.Effect
	Sinks    []effect.Sink
	NS       model.Namespace
	History  model.History
	Rows     model.Snapshot
}

// Promised is what the answers of one keyed action promise of its effects.
type Promised struct {
	// OKIDs are the IDs of the action's ok answers, in order.
	OKIDs []string
	// MayExist: some call was answered ok, or got no certain answer.
	MayExist bool
	// Winners are the payloads that may have created the action, when the
	// model knows the action exists: one, or more when the answers leave
	// open which call won (changed_payload: replayed, after an unknown
	// call or in a burst). A stored row must hold one of them.
	Winners [][]byte
}

// Kind is what an effect check found; each is one check of the catalogue
// of package checks, which gives it its ID and name.
type Kind int

// The kinds of finding, named after the checks they are.
const (
	DuplicateEffect Kind = iota + 1
	MissingEffect
	UnstableResponse
	RejectedEffect
	TenantLeak
	KeysFolded
	StrayWrite
	FieldsDiffer
	BrokenReference
	PhantomDelivery
	DuplicateDelivery
	EventIDChanged
	LostDelivery
	// NumKinds is one more than the last kind.
	NumKinds
)

// Finding is one broken rule of an effect. What is deterministic, as a
// violation's message must be (no IDs, times, tenants or keys); Detail
// says where.
type Finding struct {
	Kind   Kind
	Action model.Action
	What   string
	Detail string
}

// violation is a finding of kind k for action a.
func violation(k Kind, a model.Action, what, detail string) Finding {
	return Finding{Kind: k, Action: a, What: what, Detail: detail}
}

// Check judges the committed rows, then the sinks' deliveries, against
// the promises of the keyed actions (actions) and the keyless calls
// (keyless). The findings are in no particular order.
func Check(in Input, actions map[model.Action]*Promised, keyless []model.Op) []Finding {
	vs := rowChecks(in, actions, keyless)
	return append(vs, sinkChecks(in, actions)...)
}
