package checks

import (
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/model/coverage"
)

// Status is what a run says of one check.
type Status string

const (
	// Failed: the check fired.
	Failed Status = "failed"
	// Passed: the check was exercised and never fired.
	Passed Status = "passed"
	// NotExercised: none of the transitions the check needs happened, so
	// its silence proves nothing.
	NotExercised Status = "not exercised"
	// Undecided: the run was inconclusive, so a check that did not fire
	// proves nothing either.
	Undecided Status = "inconclusive"
)

// anyOf lists the transitions of which any one exercises a check.
func anyOf(ts ...coverage.Transition) []coverage.Transition { return ts }

// Exercised reports whether cov holds one of the transitions the check needs.
func (c Check) Exercised(cov coverage.Coverage) bool {
	return c.Needs == nil || slices.ContainsFunc(c.Needs, func(t coverage.Transition) bool { return cov[t] > 0 })
}

// Unexercised says why cov did not exercise the check ("not exercised: no
// call of another tenant with the same key"), or "" when it did.
func (c Check) Unexercised(cov coverage.Coverage) string {
	if c.Exercised(cov) {
		return ""
	}
	if !declaresSinks(cov) && len(c.Needs) > 0 && !slices.ContainsFunc(c.Needs, func(t coverage.Transition) bool { return !slices.Contains(coverage.SinkTransitions, t) }) {
		return "not exercised: " + noSink
	}
	var missing, faults []string
	for _, t := range c.Needs {
		if _, ok := absences[t]; !ok {
			faults = append(faults, string(t))
			continue
		}
		missing = append(missing, absences[t])
	}
	if len(faults) > 0 {
		// One clause for the faults any of which would do: "no db-error
		// or dep-error fault fired".
		missing = append(missing, "no "+strings.Join(faults, " or ")+" fault fired")
	}
	return "not exercised: " + strings.Join(missing, ", ")
}

// noSink is why a check of sinks was not exercised under a contract
// without sinks, whose coverage names no sink transition.
const noSink = "the contract declares no sink"

// declaresSinks reports whether cov is of a contract with sinks: it names
// the sink transitions, counted or not (model.Exercised).
func declaresSinks(cov coverage.Coverage) bool {
	return slices.ContainsFunc(coverage.SinkTransitions, func(t coverage.Transition) bool { _, ok := cov[t]; return ok })
}

// absences say what a run lacked when it never made a transition.
var absences = map[coverage.Transition]string{
	coverage.Called:             "no call",
	coverage.SequentialRetry:    "no sequential retry",
	coverage.ChangedPayload:     "no call with a changed payload for the same key",
	coverage.OtherTenantSameKey: "no call of another tenant with the same key",
	coverage.Keyless:            "no call without a key",
	coverage.Reencoding:         "no re-encoded payload",
	coverage.FoldedKey:          "no key that differs from another only by white space, case or form",
	coverage.Burst:              "no calls of one action at once",
	coverage.KeylessCreate:      "no call without a key under key_required: false",
	coverage.RefusedThenFixed:   "no call after a refused one of its action (no payload rule to break, or refusals: untested)",
	coverage.RecoveredRetry:     "no crashed action retried until its key was released or the recovery time had passed",
	// The sinks'.
	coverage.Delivered:            "no delivery to a sink",
	coverage.SinkRefused:          "no delivery a sink refused",
	coverage.DeliveredCalledAgain: "no delivery of an action called again",
	coverage.Redelivered:          "no delivery retried after an at-least-once sink refused it",
	coverage.AwaitedEvent:         "no ok answer under a sink",
}

// Statuses is the status of every check of the catalogue after a run that
// covered cov and fired the checks fired: failed, else inconclusive when
// the run was, else not exercised or passed.
func Statuses(cov coverage.Coverage, fired []ID, inconclusive bool) map[ID]Status {
	out := map[ID]Status{}
	for _, c := range catalogue {
		switch {
		case slices.Contains(fired, c.ID):
			out[c.ID] = Failed
		case inconclusive:
			out[c.ID] = Undecided
		case !c.Exercised(cov):
			out[c.ID] = NotExercised
		default:
			out[c.ID] = Passed
		}
	}
	return out
}
