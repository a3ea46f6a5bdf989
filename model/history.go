package model

// OutcomeKind is Jepsen's ok / fail / info, refined by the contract.
type OutcomeKind string

const (
	// OK is a 2xx answer with a resource ID (created or replayed).
	OK OutcomeKind = "ok"
	// Conflict is the contract's answer to "same key, different payload".
	Conflict OutcomeKind = "conflict"
	// InFlight is the contract's answer to "same key still being processed".
	InFlight OutcomeKind = "in_flight"
	// Invalid is the contract's answer to a call without a key.
	Invalid OutcomeKind = "invalid"
	// Unknown is no answer, or a 5xx: the call may or may not have taken effect.
	Unknown OutcomeKind = "unknown"
	// Failed is a 5xx that the contract promises left no effect.
	Failed OutcomeKind = "failed"
	// Other is an answer the contract does not allow at all (a 404, a 2xx
	// without an ID): always a violation, and the call's effect is unknown.
	Other OutcomeKind = "other"
)

// Outcome is what one call got back.
type Outcome struct {
	Kind   OutcomeKind `json:"kind"`
	Status int         `json:"status,omitempty"`
	ID     string      `json:"id,omitempty"`
	// Err says why there was no answer (timeout, reset, refused).
	Err string `json:"error,omitempty"`
}

// Op is one call of a history: what was sent, when, and what came back.
type Op struct {
	Step int  `json:"step"`
	Call Call `json:"call"`
	// Body is the payload exactly as sent.
	Body []byte `json:"body"`
	// Start and End are nanoseconds since the run began (monotonic).
	Start int64   `json:"start"`
	End   int64   `json:"end"`
	Out   Outcome `json:"outcome"`
}

// History is every call of one plan's execution, in the order they started.
type History []Op
