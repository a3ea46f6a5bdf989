package checks

import (
	"bytes"
	"fmt"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/faultkind"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// A transient failure (the db-error fault, or dep-error at a dependency
// such as its Redis) makes one call's work fail inside the service, and the service answers with a server error (a
// 5xx, or an answer answers.server_error takes). What the retries
// of that call must get is the contract's errors: policy. By default
// (not-stored) a retry is executed afresh: most idempotency libraries store
// nothing when the work fails, and a middleware that stores the 500 and
// replays it turns a passing database error into a key that fails for as
// long as the key is kept. Under stored (Stripe v1 replays a saved 5xx)
// the retry must get the same error, and a fresh execution is the mistake.

// failedByFault reports whether op is a call a transient failure
// (db-error, dep-error: model.Transient) made fail:
// it carried the fault and was answered with a server error. Its server
// error is what the fault asked for, not a wrong status.
func failedByFault(op model.Op) bool {
	return faultkind.Transient(op.Call.Fault) && op.Out.ServerError()
}

// errorReplays judges the retries of an action's calls that a transient
// failure made fail, against the errors: policy. It returns the violations
// and the history positions (within ops) of the retries that replayed a
// stored error as the contract says they must: their 5xx is no wrong
// status.
func errorReplays(c model.Contract, a model.Action, ops []model.Op) ([]Violation, map[int]bool) {
	var vs []Violation
	replayed := map[int]bool{}
	for _, failed := range ops {
		if !failedByFault(failed) {
			continue
		}
		for i, retry := range ops {
			// A retry is a later call of the action with an equivalent
			// payload: a changed one is judged by the model's own rules,
			// except under changed_payload: replayed, where the key alone
			// says what a call gets back.
			// A retry that carries a fault of its own is one still, unless
			// that fault is another transient failure (its 5xx is its own): a saved
			// 500 replayed to a doubly delivered retry is a replay.
			if retry.Start < failed.End || faultkind.Transient(retry.Call.Fault) || retry.Out.Status == 0 ||
				!c.ChangedReplayed && !payloads.Equivalent(c, failed.Body, retry.Body) {
				continue
			}
			// The same server error: a GraphQL API answers its saved
			// error 200, as it answers a created one.
			same := retry.Out.ServerError() && retry.Out.Status == failed.Out.Status
			switch {
			case c.ErrorsStored && same:
				replayed[i] = true
			// Only an ok answer is an execution: a retry told the key is
			// in flight (a burst's other retry holding it, Stripe's 409)
			// executed nothing, under either policy.
			case c.ErrorsStored && retry.Out.Kind == model.OK:
				vs = append(vs, violation(ErrorReplay, a, "a retry after a transient error was executed afresh, but the contract stores errors (errors: stored)",
					fmt.Sprintf("call %s got %d, then its retry %s got %s", failed.Call, failed.Out.Status, retry.Call, retry.Out)))
			case same && bytes.Equal(retry.Out.Body, failed.Out.Body):
				vs = append(vs, violation(ErrorReplay, a, "a retry after a transient error got the error replayed, but the contract does not store errors (errors: not-stored)",
					fmt.Sprintf("call %s got %d, then its retry %s got the same %d and body", failed.Call, failed.Out.Status, retry.Call, retry.Out.Status)))
				// Its 5xx is reported here, as the replay it is.
				replayed[i] = true
			}
		}
	}
	return vs, replayed
}
