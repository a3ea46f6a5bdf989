package fault

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// DBErrorCodes are the failures db-error deals at a statement through the
// database proxy, as PostgreSQL and its clients report them, in the order
// shrinking prefers them: a serialization failure and a deadlock (the
// server fails the statement and its transaction, the session lives on:
// a service may retry the transaction itself or answer 5xx), a terminated
// backend (administrator command: a failover, a restarted pooler; the
// session ends) and a lost connection (08006: the proxy cuts it). A run
// deals each (gen.World.Codes); the plan names it (Call.Point).
var DBErrorCodes = []string{"40001", "40P01", "57P01", "08006"}

// DBErrorCode is the code db-error deals to call through the database
// proxy: the one its plan names (Call.Point), or 57P01, the session ended
// under the call, for a plan that names none (what db-error always
// dealt). It is plan data, never drawn from the call's tenant or key:
// shrinking renames those (A/k3 to A/k1), and a service that fails only
// on some codes would shrink to another bug or none.
func DBErrorCode(call model.Call) string {
	if call.Point == "" {
		return "57P01"
	}
	return call.Point
}

// CheckDBErrorCode refuses a failure db-error cannot deal.
func CheckDBErrorCode(code string) error {
	if code == "" || slices.Contains(DBErrorCodes, code) {
		return nil
	}
	return fmt.Errorf("db-error failure %q: want one of %s (08006 cuts the connection), or none for 57P01", code, strings.Join(DBErrorCodes, ", "))
}

// ErrorAt is a call's hook (pgproxy.Call.SetAt) that answers the nth
// statement (from 1) of the call's sessions for which match holds with
// pgproxy.Error(code), once, and lets everything else through. The server
// raises an ERROR-level code in the statement's place, so the call's
// transaction really fails; 57P01 ends the session as a terminated
// backend; 08006 cuts the connection. Only sessions tied to the call are
// ever touched: a bystander's session (another plan's call, another
// client of the database) carries none of its markers.
func ErrorAt(code string, nth int, match func(sql string) bool) func(pgproxy.Point) pgproxy.Action {
	var mu sync.Mutex
	seen := 0
	return func(pt pgproxy.Point) pgproxy.Action {
		if pt.Kind != pgproxy.BeforeStatement || !match(pt.SQL) {
			return pgproxy.Continue
		}
		mu.Lock()
		defer mu.Unlock()
		if seen++; seen != nth {
			return pgproxy.Continue
		}
		return pgproxy.Error(code)
	}
}

// errorTarget is the statement db-error fails: the call's first write to
// table (the last effect table, where the table-lock db-error lands, so
// that a failure between a service's two transactions stays in reach),
// or its first write of any kind when the contract gives no effect table
// as a table ("").
func errorTarget(table string) func(sql string) bool {
	if table == "" {
		return pgproxy.Writes
	}
	return func(sql string) bool { return pgproxy.WritesTo(sql, table) }
}

// errorAtStatement is db-error where the database proxy stands in front
// of the service's database: the call's own session is answered at its
// write to the last effect table (errorTarget) with a real PostgreSQL
// error (DBErrorCode). The fault fires only when the error was delivered
// (pgproxy.Call.Injected).
func errorAtStatement(ctx context.Context, env CallEnv, tied *pgproxy.Call, call model.Call) (CallOutcome, error) {
	code, table := DBErrorCode(call), ""
	if s := env.EffectStall(); s != nil {
		table = s.Table
	}
	tied.SetAt(ErrorAt(code, 1, errorTarget(table)))
	defer tied.SetAt(nil)
	op, err := env.Send(ctx, call, 0, nil)
	out := CallOutcome{Ops: []model.Op{op}, Fired: delivered(tied, code)}
	if !out.Fired {
		out.Note = unfiredAtStatement(op, table)
	}
	return out, err
}

// delivered reports whether code reached one of the call's sessions.
func delivered(tied *pgproxy.Call, code string) bool {
	for _, in := range tied.Injected() {
		if in.Code == code {
			return true
		}
	}
	return false
}

func unfiredAtStatement(op model.Op, table string) string {
	what := "no write of the call"
	if table != "" {
		what = "no write of the call to " + table
	}
	if op.Out.Status >= 400 && op.Out.Status < 500 {
		return fmt.Sprintf("the service answered %d before it wrote to the database (a call it refuses writes nothing), so no statement of it was failed", op.Out.Status)
	}
	return "the database proxy saw " + what + " (an INSERT, UPDATE, DELETE or MERGE carrying its key, tag or tenant, " +
		"or after one in its transaction), so no statement of it was failed; a write inside a function " +
		"(SELECT create_ticket($1)) is not seen"
}
