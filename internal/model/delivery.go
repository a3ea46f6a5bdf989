package model

// SinkFault is what a sink does to one delivery attempt.
type SinkFault string

const (
	// SinkNone accepts the delivery (200).
	SinkNone SinkFault = ""
	// Sink500 answers 500: the service must deliver the event again.
	Sink500 SinkFault = "500"
	// SinkSlow answers 200 only after Slow: a sender that gives up first
	// must deliver it again.
	SinkSlow SinkFault = "slow"
	// SinkDrop closes the connection without an answer.
	SinkDrop SinkFault = "drop"
)

// Delivery is one request a sink received: an event of the history, on
// the calls' clock.
type Delivery struct {
	Sink string `json:"sink"`
	// Time is when it arrived, nanoseconds since the run began.
	Time   int64               `json:"time"`
	Method string              `json:"method"`
	Header map[string][]string `json:"header,omitempty"`
	Body   Body                `json:"body"`
	// Fault is what the sink did to it; Accepted says the sender got the
	// sink's 200 (neither refused, dropped, nor given up on while slow).
	Fault    SinkFault `json:"fault,omitempty"`
	Accepted bool      `json:"accepted"`
}
