package respproxy

import (
	"fmt"
	"regexp"
	"strings"
)

// Kind names a boundary of one command of a call.
type Kind int

const (
	// BeforeCommand: a command of the call is about to reach the server.
	BeforeCommand Kind = iota + 1
	// AfterCommand: the server has run it and answered; the client has
	// not seen the answer.
	AfterCommand
)

func (k Kind) String() string {
	switch k {
	case BeforeCommand:
		return "before"
	case AfterCommand:
		return "after"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Point is one boundary of a tied command, as the hook sees it.
type Point struct {
	Call    string // the name the call was tied under
	Kind    Kind
	Command string // the command's name in upper case: "SET", "EXEC"
	// N is the call's n-th command of that name (from 1), Index its n-th
	// command of any name.
	N, Index int
	// Error says the server answered an AfterCommand point with an error
	// reply (a SET NX that found the key answers a null, no error).
	Error bool
}

// Step is a point of a recorded trace.
type Step struct {
	Kind    Kind
	Command string
	N       int
	Index   int
}

func (s Step) String() string { return fmt.Sprintf("%s %s %d", s.Kind, s.Command, s.N) }

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
	line    string // the error reply's text, for Error
	release <-chan struct{}
}

// Continue lets the command go on.
var Continue = Action{}

// Cut closes both of the session's connections at once: the client sees
// its connection fail (and does not know whether a command it sent was
// run: after AfterCommand it was).
var Cut = Action{kind: actCut}

// Hold blocks the session at the point until release is closed, the
// client's connection ends (its process was killed) or the proxy is
// closed: hold, then SIGKILL the client's process, is a crash exactly at
// the point.
func Hold(release <-chan struct{}) Action { return Action{kind: actHold, release: release} }

// errorLines are Redis's own texts for the error replies a nemesis deals:
// a replica promoted under the client (READONLY), a server reading its
// data back after a restart (LOADING), out of memory (OOM), a replica
// whose primary is gone (MASTERDOWN), a script that will not stop (BUSY).
var errorLines = map[string]string{
	"ERR":        "ERR injected by idemstress",
	"READONLY":   "READONLY You can't write against a read only replica.",
	"LOADING":    "LOADING Redis is loading the dataset in memory",
	"OOM":        "OOM command not allowed when used memory > 'maxmemory'.",
	"MASTERDOWN": "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
	"BUSY":       "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.",
}

var errorCode = regexp.MustCompile(`^[A-Z][A-Z0-9]{1,31}$`)

// Error answers the point with a Redis error reply whose first word is
// code ("ERR", "READONLY", "LOADING", "OOM", "MASTERDOWN", "BUSY", or
// another word of capitals), with Redis's own text for the codes it
// knows. Before a command, the command is not sent: the client reads
// "-READONLY You can't write …" in its place, as from a server that
// refused it, and nothing of it was run. After a command the server has
// run it, and only the connection's loss can hide its answer honestly,
// so an Error at an AfterCommand point is a Cut. Client libraries retry
// some of these (go-redis: LOADING, READONLY, MASTERDOWN, and a lost
// connection) on their own; the hook sees each attempt at its point.
func Error(code string) Action {
	if !errorCode.MatchString(code) {
		panic(fmt.Sprintf("respproxy: Error(%q): an error code is one word of capitals, as READONLY", code))
	}
	line, ok := errorLines[code]
	if !ok {
		line = code + " injected by idemstress"
	} else if code != "ERR" {
		line += " (injected by idemstress)"
	}
	return Action{kind: actError, line: line}
}

// ErrorCodes are the codes Error gives Redis's own text to.
func ErrorCodes() []string {
	return []string{"ERR", "READONLY", "LOADING", "OOM", "MASTERDOWN", "BUSY"}
}

func (a Action) String() string {
	switch a.kind {
	case actHold:
		return "hold"
	case actError:
		code, _, _ := strings.Cut(a.line, " ")
		return "error " + code
	case actCut:
		return "cut"
	}
	return "continue"
}
