// Package checks holds the check catalogue, the effect tables a contract
// declares, the read-only observer that reads them, and the verdicts that
// compare a history and the committed rows with the reference model.
package checks

import (
	"cmp"
	"slices"

	"github.com/idemstress/idemstress/model"
)

// ID is a stable check ID, used in reports, regression cases and docs.
type ID string

// The check catalogue (DESIGN.md).
const (
	DuplicateEffect  ID = "IDEM-001"
	MissingEffect    ID = "IDEM-002"
	UnstableResponse ID = "IDEM-003"
	ChangedAccepted  ID = "IDEM-004"
	EqualRejected    ID = "IDEM-005"
	RejectedEffect   ID = "IDEM-006"
	TenantLeak       ID = "IDEM-007"
	WrongStatus      ID = "IDEM-008"
	StrayWrite       ID = "IDEM-009"
	FieldsDiffer     ID = "IDEM-010"
	BrokenReference  ID = "IDEM-011"
	StuckAction      ID = "IDEM-012"
	NotLinearizable  ID = "IDEM-013"
	NoAnswer         ID = "IDEM-014"
)

// priority orders checks from the most specific diagnosis to the most
// generic, so the first violation of a sorted list names the mistake best
// (a tenant leak also leaves a missing effect; the leak is the news). Wrong
// committed state comes before wrong answers: a duplicate row is the harm,
// the accepted changed payload that came with it the symptom.
var priority = []ID{
	TenantLeak, DuplicateEffect, BrokenReference, FieldsDiffer, RejectedEffect,
	ChangedAccepted, EqualRejected, UnstableResponse, MissingEffect, StrayWrite,
	WrongStatus, StuckAction, NoAnswer, NotLinearizable,
}

// Violation is one broken rule. Message is deterministic, the same every
// time the same mistake shows (no IDs, times, tenants or keys), because
// rapid only shrinks while a failure repeats with the same message. Detail
// says where: the action, the rows, the IDs.
type Violation struct {
	Check   ID           `json:"check"`
	Message string       `json:"message"`
	Detail  string       `json:"detail"`
	Action  model.Action `json:"action"`
}

func violation(id ID, action model.Action, message, detail string) Violation {
	return Violation{Check: id, Message: string(id) + " " + message, Detail: detail, Action: action}
}

// Sort orders violations by priority, then by message and detail, so the
// first one is the primary finding and the order never depends on map
// iteration.
func Sort(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(
			cmp.Compare(slices.Index(priority, a.Check), slices.Index(priority, b.Check)),
			cmp.Compare(a.Message, b.Message),
			cmp.Compare(a.Detail, b.Detail),
		)
	})
}

// Fired lists the distinct checks among violations, in priority order.
func Fired(vs []Violation) []ID {
	var ids []ID
	for _, id := range priority {
		if slices.ContainsFunc(vs, func(v Violation) bool { return v.Check == id }) {
			ids = append(ids, id)
		}
	}
	return ids
}
