// Package model names the plain data a Go caller of idemstress meets: the
// contract and effect tables of a stress.Config, the plans a
// stress.Session tries, and the histories, fault counts and coverage a
// stress.Failure or stress.Result holds. Each is an alias of the type
// internal/model defines, where the semantics live (rendering payloads,
// keys and namespaces, the reference model, coverage): those are the
// engine's, and no caller names them.
//
// API index: [Contract] (with [Statuses], [Answers], [Matcher],
// [Equivalence], [KeyScope], [KeyCompare], [IDFormat], [Refusals], [FieldRule], [Range]) and
// [Effect] ([Reference]) and [Sink] ([DeliveryMode], [SinkFault]) describe the target; [Plan], [Step] ([StepCall],
// [StepBurst], [StepRestart], [StepFault]), [Call], [Action], [Noise] and
// [Namespace] what is sent; [History], [Op], [Outcome] ([OutcomeKind]: [OK],
// [Conflict], ...), [Body], [FaultEvent] and [Delivery] what happened; [Fault] names a
// fault ([FaultLoseReply], [FaultCrash], ...), [FaultCount] counts them and
// [Coverage] counts each [Transition] a run made.
package model

import m "github.com/idemstress/idemstress/internal/model"

// The contract and its effect tables (stress.Config's Contract, Effects).
type (
	Contract    = m.Contract
	Statuses    = m.Statuses
	Answers     = m.Answers
	Matcher     = m.Matcher
	Equivalence = m.Equivalence
	KeyScope    = m.KeyScope
	KeyCompare  = m.KeyCompare
	IDFormat    = m.IDFormat
	Refusals    = m.Refusals
	FieldRule   = m.FieldRule
	Range       = m.Range
	Effect      = m.Effect
	Reference   = m.Reference
)

// Sinks, effects beyond the database (stress.Config's Sinks), and what
// they received (History's Deliveries).
type (
	Sink         = m.Sink
	DeliveryMode = m.DeliveryMode
	SinkFault    = m.SinkFault
	Delivery     = m.Delivery
)

// A sink's delivery semantics, and what it does to an attempt.
const (
	ExactlyOnce = m.ExactlyOnce
	AtLeastOnce = m.AtLeastOnce
	SinkNone    = m.SinkNone
	Sink500     = m.Sink500
	SinkSlow    = m.SinkSlow
	SinkDrop    = m.SinkDrop
)

// Plans (stress.Session.Try's, stress.Failure's Plan and Original).
type (
	Plan      = m.Plan
	Step      = m.Step
	Call      = m.Call
	Action    = m.Action
	Noise     = m.Noise
	Namespace = m.Namespace
)

// What each step of a plan does.
const (
	StepCall    = m.StepCall
	StepBurst   = m.StepBurst
	StepRestart = m.StepRestart
	StepFault   = m.StepFault
)

// Histories (stress.Failure's History, stress.Session.Try's Trial).
type (
	History     = m.History
	Op          = m.Op
	Outcome     = m.Outcome
	OutcomeKind = m.OutcomeKind
	Body        = m.Body
	FaultEvent  = m.FaultEvent
)

// The formats of the identifiers an API constrains (Contract's
// KeyFormat, TenantFormat, TagFormat): docs/contract.md says what each
// sends.
const (
	IDAny      = m.IDAny
	IDWord     = m.IDWord
	IDDNSLabel = m.IDDNSLabel
	IDUUID     = m.IDUUID
)

// What a refused call does to its key (Contract's Refusals, the
// contract's refusals:).
const (
	RefusalsNotStored = m.RefusalsNotStored
	RefusalsStored    = m.RefusalsStored
	RefusalsUntested  = m.RefusalsUntested
)

// The kinds of answer an Outcome holds.
const (
	OK       = m.OK
	Conflict = m.Conflict
	InFlight = m.InFlight
	Invalid  = m.Invalid
	Unknown  = m.Unknown
	Failed   = m.Failed
	Other    = m.Other
)

// Faults (stress.Config's Faults, stress.Result's Faults) and coverage
// (stress.Result's Coverage).
type (
	Fault      = m.Fault
	FaultCount = m.FaultCount
	Coverage   = m.Coverage
	Transition = m.Transition
)

// The faults a plan may carry: docs/faults.md says what each does.
const (
	FaultLoseReply        = m.FaultLoseReply
	FaultDropRequest      = m.FaultDropRequest
	FaultDoubleDelivery   = m.FaultDoubleDelivery
	FaultDelay            = m.FaultDelay
	FaultCrash            = m.FaultCrash
	FaultCrashKeyRecord   = m.FaultCrashKeyRecord
	FaultPause            = m.FaultPause
	FaultRestart          = m.FaultRestart
	FaultDBStall          = m.FaultDBStall
	FaultDBError          = m.FaultDBError
	FaultSlowOriginal     = m.FaultSlowOriginal
	FaultCrashAfterCommit = m.FaultCrashAfterCommit
	FaultCrashAt          = m.FaultCrashAt
	FaultPauseKeyRecord   = m.FaultPauseKeyRecord
	FaultDepRestart       = m.FaultDepRestart
	FaultDepCrash         = m.FaultDepCrash
	// FaultExit is no planned fault: the event of a replica that exited on its own (IDEM-018).
	FaultExit = m.FaultExit
)
