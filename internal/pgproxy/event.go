package pgproxy

import "fmt"

// EventKind names what happened on a session.
type EventKind int

const (
	// StatementBegins: a statement (Query, or Execute of a bound portal) goes to the server.
	StatementBegins EventKind = iota + 1
	// StatementAnswered: the server answered it (CommandComplete or ErrorResponse).
	StatementAnswered
	// CommitBegins and CommitAnswered are the same for a COMMIT.
	CommitBegins
	CommitAnswered
	// TransactionEnds: ReadyForQuery came back idle ('I') after a tied transaction.
	TransactionEnds
)

var eventNames = map[EventKind]string{
	StatementBegins:   "statement begins",
	StatementAnswered: "statement answered",
	CommitBegins:      "commit begins",
	CommitAnswered:    "commit answered",
	TransactionEnds:   "transaction ends",
}

func (k EventKind) String() string {
	if s, ok := eventNames[k]; ok {
		return s
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one step of a session, given to Options.OnEvent as it happens
// (tied or not; Call is empty for a session no call is tied to).
type Event struct {
	Session uint64 // the proxy's number for the client connection, from 1
	Kind    EventKind
	Call    string
	SQL     string
	Params  [][]byte // the bound parameter values as sent (nil for the simple protocol)
	Tag     string   // CommandComplete's tag ("INSERT 0 1") of an answer
	Code    string   // the SQLSTATE of an ErrorResponse answer
	Status  byte     // TransactionEnds: the ReadyForQuery status ('I')
}
