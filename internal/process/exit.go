package process

import (
	"context"
	"fmt"
	"time"
)

// Exit is how a replica's process ended on its own, without idemstress
// ending it: the service died (an unhandled error, a panic, a call to
// exit). A plan reports it as a finding about the service.
type Exit struct {
	Replica int
	// Status is the process's exit status ("exit status 1", "signal:
	// aborted").
	Status string
	// Output is the last lines the process wrote, masked (Tail.Since).
	Output string
	// At is when the process was seen gone.
	At time.Time
}

// exitPoll is how often ExitWithin looks at the replicas again.
const exitPoll = 5 * time.Millisecond

// ExitWithin waits up to d (or until ctx ends) for a replica whose current
// process exited on its own, and returns how it exited; false when none
// did. A replica that idemstress crashed, stopped or restarted is not one.
// d of 0 looks once without waiting.
func (p *Service) ExitWithin(ctx context.Context, d time.Duration) (Exit, bool) {
	deadline := time.Now().Add(d)
	for {
		for _, r := range p.reps {
			p.mu.Lock()
			pr, stopped := r.cur, p.stopped
			onItsOwn := !stopped && pr.exited() && pr.ending == ""
			p.mu.Unlock()
			if onItsOwn {
				pr.settle()
				return Exit{Replica: r.index, Status: exitStatus(pr.err), Output: r.out.Since(pr.mark), At: pr.at}, true
			}
		}
		if !time.Now().Before(deadline) {
			return Exit{}, false
		}
		select {
		case <-ctx.Done():
			return Exit{}, false
		case <-time.After(exitPoll):
		}
	}
}

// Revive starts again, on its port, replica i whose process exited on its
// own, and waits until it is ready: a service's death is a finding, and
// the run goes on with the replica back. It does nothing to a replica that
// runs, and fails for one that idemstress ended (Up starts those).
func (p *Service) Revive(ctx context.Context, i int) error {
	r, err := p.replica(i)
	if err != nil {
		return err
	}
	r.op.Lock()
	defer r.op.Unlock()
	p.mu.Lock()
	pr, stopped, ending := r.cur, p.stopped, r.cur.ending
	p.mu.Unlock()
	switch {
	case stopped:
		return fmt.Errorf("process: replica %d: %w", r.index, ErrStopped)
	case !pr.exited():
		return nil
	case ending != "":
		return fmt.Errorf("process: replica %d (pid %d) was ended by %s, not on its own; Up starts it again", r.index, pr.pid, ending)
	}
	note(r.out, "replica %d: pid %d exited on its own (%s); starting it again on port %d", r.index, pr.pid, exitStatus(pr.err), pr.port)
	next, err := p.launch(r, pr.port)
	if err != nil {
		return err
	}
	return p.waitReady(ctx, r, next)
}
