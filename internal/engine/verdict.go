package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemstress/idemstress/checks"
)

// tallies are what a run counted that its final verdict depends on.
type tallies struct {
	// bugs is how many distinct failures the run reported.
	bugs int
	// stop is the run's sticky infrastructure failure or interruption.
	stop error
	// outside is how many tables changed outside the run's namespace
	// (IDEM-009), and otherWriter why that check could not judge.
	outside     int
	otherWriter string
	// stallTable is the db-stall nemesis's table; stallPlanned its bursts
	// and stallHeld the requests it saw waiting on its lock.
	stallTable              string
	stallPlanned, stallHeld int
	// searched is how many plans the search tried in duration.
	searched int
	duration time.Duration
	// unfired is how many of executions had a planned fault that did not
	// fire, unfiredKinds which kinds and why.
	unfired, executions int
	unfiredKinds        string
}

// verdict is a run's final verdict and why it is not a pass: a failure
// found stays found; then anything that kept the run from proving what it
// set out to (an infrastructure failure, another writer, a nemesis that
// never bit, no plan, a fault that did not fire) makes it inconclusive,
// never a pass.
func verdict(t tallies) (checks.Verdict, error) {
	switch {
	case t.bugs > 0:
		// A failure found while the run stopped shrinking it: err says
		// the plan may not be minimal.
		return checks.Fail, t.stop
	case t.stop != nil:
		return checks.Inconclusive, t.stop
	case t.outside > 0:
		return checks.Fail, nil
	case t.otherWriter != "":
		return checks.Inconclusive, errors.New(t.otherWriter)
	case t.stallPlanned > 0 && t.stallHeld == 0:
		// Every burst was answered without one request waiting on the
		// lock: the service never writes that table inside a request.
		return checks.Inconclusive, fmt.Errorf("the db-stall nemesis on %s never held back a request in %d burst(s): nothing the service does waits on that table; stall a table it writes while it handles a call (an effect table, or its own idempotency-key table)",
			t.stallTable, t.stallPlanned)
	case t.searched == 0:
		return checks.Inconclusive, fmt.Errorf("no plan was tried: the run's budget (duration %s) ended before the first plan; give it time for some plans", t.duration)
	case t.unfired > 0:
		return checks.Inconclusive, fmt.Errorf("%d of %d executions: a planned fault did not fire (%s)", t.unfired, t.executions, t.unfiredKinds)
	}
	return checks.Pass, nil
}
