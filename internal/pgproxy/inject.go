package pgproxy

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

var sqlstate = regexp.MustCompile(`^[0-9A-Z]{5}$`)

// messages are PostgreSQL's own texts for the codes a nemesis deals.
var messages = map[string]string{
	"40001": "could not serialize access due to concurrent update",
	"40P01": "deadlock detected",
	"57P01": "terminating connection due to administrator command",
	"57P02": "terminating connection due to crash of another server process",
	"57P03": "the database system is shutting down",
}

func message(code string) string {
	m, ok := messages[code]
	if !ok {
		m = "error " + code
	}
	return m + " (injected by idemstress)"
}

// fatal: the server ends the session after an error of this class.
func fatal(code string) bool { return strings.HasPrefix(code, "57P") }

// lost: the client's own code for a connection that failed.
func lost(code string) bool { return strings.HasPrefix(code, "08") }

// raiseSQL is a statement that fails on the server with code, so that the
// error, its severity and the transaction's state are the server's own.
func raiseSQL(code string) string {
	return fmt.Sprintf("DO $idemstress$ BEGIN RAISE EXCEPTION USING ERRCODE = '%s', MESSAGE = '%s'; END $idemstress$",
		code, strings.ReplaceAll(message(code), "'", "''"))
}

// fatalFrame is what a terminated backend sends before it closes.
func fatalFrame(code string) (frame, error) {
	return encode(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: message(code)})
}

func validCode(code string) {
	if !sqlstate.MatchString(code) {
		panic(fmt.Sprintf("pgproxy: Error(%q): a SQLSTATE is five digits or capital letters, as 40001", code))
	}
}
