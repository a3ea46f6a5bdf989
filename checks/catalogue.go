// Package checks holds the check catalogue and the verdicts: a pure
// judgement of one plan's history and the rows it committed, against the
// reference model. It reads nothing itself; package observe reads the rows.
// It judges the answers here; an action's effects (rows, deliveries) are
// judged by internal/effects, and porcupine's search for an order of
// overlapping calls is internal/linear's. The catalogue names what they
// find.
package checks

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
)

// ID is a stable check ID, used in reports, regression cases and docs.
type ID string

// The check IDs. Each has exactly one entry in the catalogue below, which
// gives it its name, its priority and its own failing line.
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
	KeysFolded       ID = "IDEM-015"
	ErrorReplay      ID = "IDEM-016"
	RefusalReplay    ID = "IDEM-017"
	ReplicaExited    ID = "IDEM-018"
	// The checks of sinks (internal/effects judges the deliveries):
	PhantomDelivery   ID = "IDEM-019"
	DuplicateDelivery ID = "IDEM-020"
	EventIDChanged    ID = "IDEM-021"
	LostDelivery      ID = "IDEM-022"
)

// fataler is what a check fails: a *rapid.T, a *testing.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// Check is one entry of the catalogue.
type Check struct {
	ID ID
	// Name starts every message of the check ("duplicate effect").
	Name string
	// Finds says what the check finds, in one line (the table of docs/checks.md).
	Finds string
	// Needs are the transitions that exercise the check, any one of them:
	// those under which a correct service gives the answers, or leaves the
	// rows, that the check judges. A run in which none happened did not
	// exercise it (NotExercised); nil: every run does.
	Needs []coverage.Transition
	// fail stops a case from a source line of this check's own: rapid
	// keeps a smaller failing plan only when it fails from the same line,
	// so a shrink stays with the check it started with instead of drifting
	// to another. Each literal below must stay on a line of its own.
	fail func(t fataler, message string)
}

// catalogue lists every check once, in priority order: from the most
// specific diagnosis to the most generic, so the first violation of a
// sorted list names the mistake best (a tenant leak also leaves a missing
// effect; the leak is the news). Wrong committed state comes before wrong
// answers: a duplicate row is the harm, the accepted changed payload that
// came with it the symptom. A check that judges every call needs one call
// (model.Called); IDEM-009 also compares the tables outside the namespace,
// which every run does. IDEM-012 is exercised only by its whole
// transition: a crash of any kind the registry has (model.FaultKind.Crashes,
// after the commit too), and a retry of the crashed action whose answer
// the recovery time decides (model.RecoveredRetry); a crash that fired
// with no retry after it proves nothing of a stuck key. A replica that exits on its own is the service's own
// failure, whatever its answers: it ranks above the answer checks. The checks of sinks need what happened
// at a sink (model.SinkTransitions), so a contract without sinks exercises none.
var catalogue = []Check{
	{TenantLeak, "tenant leak", "one tenant's call was answered with, judged against, or wrote another tenant's action", anyOf(coverage.OtherTenantSameKey),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{KeysFolded, "keys folded", "calls whose keys the contract tells apart (white space, case, form) were answered or stored as one action", anyOf(coverage.FoldedKey),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{DuplicateEffect, "duplicate effect", "an action has more rows than per_action in some table", anyOf(coverage.SequentialRetry, coverage.ChangedPayload, coverage.Burst, coverage.FaultFired(model.FaultDoubleDelivery)),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{PhantomDelivery, "phantom delivery", "a sink received an event of an action that never committed, or one announcing a resource it never committed (sent before a commit that rolled back)", anyOf(coverage.Delivered),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{EventIDChanged, "event ID changed", "a delivery retried after the sink refused it carried a new event ID (delivery: at-least-once)", anyOf(coverage.Redelivered),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{DuplicateDelivery, "duplicate delivery", "an action's events reached a sink more than per_action times: accepted again under exactly-once, under another event ID under at-least-once", anyOf(coverage.SinkRefused, coverage.DeliveredCalledAgain),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{BrokenReference, "broken reference", "a row points at another action's row, or at none", anyOf(coverage.Called),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{FieldsDiffer, "stored fields differ", "stored fields differ from the winning payload", anyOf(coverage.Called),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{RejectedEffect, "effect of a rejected call", "a conflict, in_flight or invalid call (or a keyless one, or one refused for breaking a payload rule) left rows", anyOf(coverage.ChangedPayload, coverage.Keyless, coverage.Burst, coverage.RefusedThenFixed),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{ChangedAccepted, "changed payload accepted", "a payload not equivalent to the action's was answered ok", anyOf(coverage.ChangedPayload),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{EqualRejected, "equivalent payload rejected", "a payload equivalent to the action's was answered conflict", anyOf(coverage.SequentialRetry, coverage.Burst),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{UnstableResponse, "unstable response", "ok answers of one action carry different IDs, or not the stored row's ID", anyOf(coverage.SequentialRetry, coverage.Burst),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{MissingEffect, "missing effect", "an action answered ok lacks rows, or a call that may have taken effect took only part of it (a ticket without its outbox row)", anyOf(coverage.Called),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{LostDelivery, "lost delivery", "a committed action's event never reached a sink within its delivery_within", anyOf(coverage.AwaitedEvent),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{StrayWrite, "stray write", "rows of actions never called, rows mixing the namespace with foreign strings, or any change outside the run's namespace", nil,
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{ReplicaExited, "replica exited", "a replica of the service exited on its own during a plan (its process ended with no crash or restart of idemstress's), after the fault named", anyOf(coverage.Called),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{ErrorReplay, "wrong error replay", "a retry after a transient error (db-error, dep-error) got the error replayed where the contract says errors are not stored, or was executed afresh where it says they are", anyOf(coverage.FaultFired(model.FaultDBError), coverage.FaultFired(model.FaultDepError)),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{RefusalReplay, "wrong refusal replay", "a call after a refused one (its payload broke a rule) got the refusal again where the contract says refusals are not stored, or was executed where it says they are", anyOf(coverage.RefusedThenFixed),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{WrongStatus, "wrong status", "an answer outside the contract (a 5xx, conflict for an action that does not exist, …)", anyOf(coverage.Called),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{StuckAction, "stuck action", "a retry answers in_flight past the recovery time after the action's other calls ended", anyOf(coverage.RecoveredRetry),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{NoAnswer, "no answer", "a call with no planned fault got no answer within the call timeout", anyOf(coverage.Called),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
	{NotLinearizable, "not linearizable", "no order of an action's concurrent calls explains their answers", anyOf(coverage.Burst),
		func(t fataler, m string) { t.Fatalf("%s", m) }},
}

// Catalogue lists every check, most specific first.
func Catalogue() []Check { return slices.Clone(catalogue) }

// Lookup finds a check's entry and its rank, its place in the catalogue
// (lower is more severe); an ID outside the catalogue gets a nameless
// entry, which ranks last.
func Lookup(id ID) (c Check, rank int) {
	i := slices.IndexFunc(catalogue, func(c Check) bool { return c.ID == id })
	if i < 0 {
		return Check{ID: id, fail: func(t fataler, m string) { t.Fatalf("%s", m) }}, len(catalogue)
	}
	return catalogue[i], i
}

// Fail fails t with the violation's message from its check's own line.
func (v Violation) Fail(t fataler) {
	c, _ := Lookup(v.Check)
	c.fail(t, v.Message)
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

// MarshalJSON writes a violation with its message and detail cut by
// model.CutLines: a detail may quote a service's answer or output, and a
// report, a case file or a timeline must not hold 200 KB of it.
func (v Violation) MarshalJSON() ([]byte, error) {
	type plain Violation
	p := plain(v)
	p.Message, p.Detail = model.CutLines(p.Message), model.CutLines(p.Detail)
	return json.Marshal(p)
}

// violation builds a violation of check id: its message is the ID, the
// check's name and what exactly was wrong.
func violation(id ID, action model.Action, what, detail string) Violation {
	c, _ := Lookup(id)
	return Violation{Check: id, Message: string(id) + " " + c.Name + ": " + what, Detail: detail, Action: action}
}

// Sort orders violations by priority, then by message and detail, so the
// first one is the primary finding and the order never depends on map
// iteration.
func Sort(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		_, pa := Lookup(a.Check)
		_, pb := Lookup(b.Check)
		return cmp.Or(cmp.Compare(pa, pb), cmp.Compare(a.Message, b.Message), cmp.Compare(a.Detail, b.Detail))
	})
}

// IDsOf lists the distinct checks among violations, in priority order.
func IDsOf(vs []Violation) []ID {
	var ids []ID
	for _, c := range catalogue {
		if slices.ContainsFunc(vs, func(v Violation) bool { return v.Check == c.ID }) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}
