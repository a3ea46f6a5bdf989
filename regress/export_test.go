package regress

import "time"

// Names the external tests use that are not part of the package's API.

const Attempts = attempts
const RacyAttempts = racyAttempts
const TimedAttempts = timedAttempts

// SetTimedBudget sets how long a race left to timing is replayed, until
// the test ends.
func SetTimedBudget(t interface{ Cleanup(func()) }, d time.Duration) {
	old := timedBudget
	timedBudget = d
	t.Cleanup(func() { timedBudget = old })
}

var Decode = decode
var Read = read
