package pgproxy

import "fmt"

// Kind names a boundary of a call's database work.
type Kind int

const (
	// BeforeStatement: a statement of the call is about to reach the server.
	BeforeStatement Kind = iota + 1
	// AfterStatement: the server has answered it; the client has not seen the answer.
	AfterStatement
	// BeforeCommit: the call's COMMIT is about to reach the server.
	BeforeCommit
	// AfterCommit: the server has committed; the client has not seen it.
	AfterCommit
	// BetweenTransactions: an earlier transaction of the call has ended and
	// the first statement of a later one that carries its marker is about
	// to reach the server.
	BetweenTransactions
)

var kindNames = map[Kind]string{
	BeforeStatement:     "before statement",
	AfterStatement:      "after statement",
	BeforeCommit:        "before commit",
	AfterCommit:         "after commit",
	BetweenTransactions: "between transactions",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// before reports whether nothing of the point's statement has reached the
// server yet, so that an ERROR-level answer can still be the server's own.
func (k Kind) before() bool {
	return k == BeforeStatement || k == BeforeCommit || k == BetweenTransactions
}

// Point is one boundary of a tied session, as the hook sees it.
type Point struct {
	Call  string // the name the call was tied under
	Kind  Kind
	Index int    // the call's n-th statement (from 1; COMMIT counts), over all its transactions
	Tx    int    // the call's n-th transaction (from 1)
	SQL   string // the statement's text (for AfterStatement: the statement answered)
}

// Step is a point of a recorded trace, with the statement's fingerprint
// instead of its text, so traces of two calls of one action compare equal.
type Step struct {
	Kind        Kind
	Index       int
	Tx          int
	Fingerprint string
}

func (s Step) String() string {
	return fmt.Sprintf("%s %d (tx %d): %s", s.Kind, s.Index, s.Tx, s.Fingerprint)
}

type actionKind int

const (
	actContinue actionKind = iota
	actHold
	actError
	actCut
)

// Action is what the hook decides at a point.
type Action struct {
	kind    actionKind
	code    string
	release <-chan struct{}
}

// Continue lets the session go on.
var Continue = Action{}

// Cut closes both of the session's connections at once: the client sees
// its connection fail (SQLSTATE class 08 on its side) and the server
// rolls back an open transaction.
var Cut = Action{kind: actCut}

// Hold blocks the session at the point until release is closed, the
// client's connection ends (its process was killed: the server then rolls
// back) or the proxy is closed. It is the building block of a crash at a
// point (hold, then SIGKILL the replica) and of a statement barrier.
func Hold(release <-chan struct{}) Action { return Action{kind: actHold, release: release} }

// Error answers the point with a PostgreSQL error of SQLSTATE code.
//
// An ERROR-level code (40001, 40P01, ...) at a point before a statement
// reaches the server is raised by the server itself in place of the
// statement, so the client reads a real ErrorResponse and the server's
// transaction is really failed (or, outside a transaction block, rolled
// back); the client's messages up to its Sync are then discarded by the
// server, as after any error. A FATAL code (class 57P: 57P01 admin
// shutdown, 57P02, 57P03) is sent to the client with severity FATAL and
// both connections are closed, as a terminated backend does. Class 08
// (08006 connection failure) is the client's own code for a lost
// connection: it is a Cut. After the server has run the statement only
// the connection's loss can hide its answer honestly, so an ERROR-level
// code at an After point is a Cut too.
func Error(code string) Action {
	validCode(code)
	return Action{kind: actError, code: code}
}

func (a Action) String() string {
	switch a.kind {
	case actHold:
		return "hold"
	case actError:
		return "error " + a.code
	case actCut:
		return "cut"
	}
	return "continue"
}
