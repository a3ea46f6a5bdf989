package engine

import (
	"slices"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model/faultkind"
)

// Progress is how far a run has got, for a caller that shows it while the
// run goes on (stress.Config.Progress). The library itself prints nothing.
type Progress struct {
	// Phase is "search" while plans are drawn and run, "shrink" while a
	// failing plan is made smaller.
	Phase string
	// Plans counts the search's plans, Executions every plan executed
	// (shrinking included), Calls their calls and FaultsFired the faults
	// that fired in them.
	Plans, Executions, Calls, FaultsFired int
	// Bugs lists the checks of the bugs found so far; Shrinking is the
	// check of the one being shrunk ("" while searching).
	Bugs      []checks.ID
	Shrinking checks.ID
	// Elapsed is the time since the run began.
	Elapsed time.Duration
}

// progress tells the caller how far the run has got.
func (r *runner) progress(phase string) {
	if r.cfg.Progress == nil {
		return
	}
	p := Progress{Phase: phase, Plans: r.searched, Executions: int(r.executions.Load()), Calls: r.calls, FaultsFired: faultkind.FaultsFired(r.faults),
		Elapsed: time.Since(r.t0)}
	for _, f := range r.bugs {
		p.Bugs = append(p.Bugs, f.Check)
	}
	if r.current != nil {
		p.Shrinking = r.current.best.Check
	}
	r.cfg.Progress(p)
}

// note says something about the run once, on the log and in the result.
func (r *runner) note(n string) {
	if !slices.Contains(r.notes, n) {
		r.notes = append(r.notes, n)
	}
}
