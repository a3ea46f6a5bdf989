package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemstress/idemstress/internal/logtail"
	"github.com/idemstress/idemstress/internal/procgroup"
)

type replica struct {
	index int
	op    sync.Mutex // one Restart, Crash, Kill, Pause or Resume at a time
	out   *logtail.Tail
	port  int
	cur   *proc // the latest process started for this replica
}

// proc is one process started for a replica.
type proc struct {
	cmd  *exec.Cmd
	pid  int // also the process group ID
	port int
	mark int64         // output written before it started
	done chan struct{} // closed once Wait has returned
	err  error         // Wait's result; read only after done
	at   time.Time     // when Wait returned; read only after done
	// output is the read end of the pipe the process group writes to;
	// copied is closed once all of it is in the replica's Tail.
	output *os.File
	copied chan struct{}
	// ending says why idemstress ended it; "" while it has not. ready
	// says it was once seen ready. Both guarded by Service.mu.
	ending string
	ready  bool
}

func (pr *proc) exited() bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

// startReplica starts r on a fresh port and waits until it is ready. A
// replica that exits because its port was taken after it was picked (another
// process bound it first) is started again on another port.
func (p *Service) startReplica(ctx context.Context, r *replica) error {
	for attempt := 0; ; attempt++ {
		port, err := p.pickPort()
		if err != nil {
			return err
		}
		pr, err := p.launch(r, port)
		if err != nil {
			return err
		}
		err = p.waitReady(ctx, r, pr)
		if err == nil || attempt == portRetries || !(errors.Is(err, errPortTaken) || exitedForPort(pr, r.out)) {
			return err
		}
		// Whatever the failed attempt started goes before the next one.
		if err := pr.end(context.Background(), 0); err != nil {
			return fmt.Errorf("process: replica %d: %w", r.index, err)
		}
		note(r.out, "port %d was taken by another process; starting replica %d again on another port", port, r.index)
	}
}

// launch starts a process for r on port and makes it r's current one.
func (p *Service) launch(r *replica, port int) (*proc, error) {
	sub := strings.NewReplacer("{port}", strconv.Itoa(port), "{database_url}", p.dbURL)
	argv := make([]string, len(p.spec.Command))
	for k, a := range p.spec.Command {
		argv[k] = sub.Replace(a)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.spec.Dir
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	if p.dbURL != "" {
		cmd.Env = append(cmd.Env, "DATABASE_URL="+p.dbURL)
	}
	for _, kv := range p.spec.Env {
		cmd.Env = append(cmd.Env, sub.Replace(kv))
	}
	// A pipe of our own, not exec's: exec's Wait would not return while a
	// child the replica left behind holds the pipe, and the replica's exit
	// would go unnoticed. One pipe for both keeps their lines in order.
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("process: replica %d: output pipe: %w", r.index, err)
	}
	defer wr.Close() // the process group has its own copies
	cmd.Stdout, cmd.Stderr = wr, wr
	// A process group of its own, so that signals reach everything the
	// command started; procgroup.SysProcAttr says what else it sets up.
	cmd.SysProcAttr = procgroup.Attr()

	// Under p.mu so that Stop either sees this process or prevents it.
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		rd.Close()
		return nil, fmt.Errorf("process: replica %d: %w", r.index, ErrStopped)
	}
	mark := r.out.Mark()
	if err := cmd.Start(); err != nil {
		rd.Close()
		hint := ""
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			hint = " (process.command[0] must name an executable: a path, relative to process.dir when set, or a name on $PATH)"
		}
		return nil, fmt.Errorf("process: replica %d: starting %q: %w%s", r.index, argv, err, hint)
	}
	pr := &proc{cmd: cmd, pid: cmd.Process.Pid, port: port, mark: mark, done: make(chan struct{}),
		output: rd, copied: make(chan struct{})}
	go func() {
		pr.err = cmd.Wait()
		pr.at = time.Now()
		close(pr.done)
	}()
	// Ends at EOF, once no process holds the pipe, or when end closes it.
	go func() {
		io.Copy(r.out, rd)
		rd.Close()
		close(pr.copied)
	}()
	r.port, r.cur = port, pr
	return pr, nil
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// claim returns r's current process and, when it still runs, marks it as
// ended by idemstress for reason. It fails after Stop and when the process
// exited on its own, so that a crash of the service is not papered over.
func (p *Service) claim(r *replica, reason string) (*proc, error) {
	p.mu.Lock()
	pr, stopped, onItsOwn := r.cur, p.stopped, false
	if !stopped {
		if pr.exited() {
			onItsOwn = pr.ending == ""
		} else if reason != "" {
			pr.ending = reason
		}
	}
	p.mu.Unlock()
	switch {
	case stopped:
		return nil, fmt.Errorf("process: replica %d: %w", r.index, ErrStopped)
	case onItsOwn:
		return nil, exitedOnItsOwn(r, pr)
	}
	return pr, nil
}

// exitedOnItsOwn describes pr, which exited without idemstress ending it.
func exitedOnItsOwn(r *replica, pr *proc) error {
	pr.settle()
	return fmt.Errorf("process: replica %d (pid %d, port %d) %w: %s%s",
		r.index, pr.pid, pr.port, ErrExited, exitStatus(pr.err), tailSince(r.out, pr.mark))
}

func (p *Service) cycle(ctx context.Context, i int, reason string, grace time.Duration) error {
	r, err := p.replica(i)
	if err != nil {
		return err
	}
	r.op.Lock()
	defer r.op.Unlock()
	pr, err := p.claim(r, reason)
	if err != nil {
		return err
	}
	if err := pr.end(ctx, grace); err != nil {
		return fmt.Errorf("process: replica %d: %s: %w", r.index, reason, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("process: replica %d: %s cancelled after stopping it (pid %d): %w", r.index, reason, pr.pid, err)
	}
	note(r.out, "%s of replica %d: pid %d ended (%s); starting it again on port %d", reason, r.index, pr.pid, exitStatus(pr.err), pr.port)
	next, err := p.launch(r, pr.port)
	if err != nil {
		return err
	}
	return p.waitReady(ctx, r, next)
}

// Up starts again every process of the service that idemstress ended and
// did not start again, its dependencies first, each on its own port and
// data directory, and waits until each is ready; one started but not yet
// seen ready is waited for. A restart or crash cut short by its context
// (a plan cut by the shrink budget) leaves its process down, and so does
// a crash whose plan ended with an error: the next plan must not meet it
// so, or a correct service is blamed for answers it could not give. One
// that exited on its own is an error (ErrExited); one running is left as
// it is.
func (p *Service) Up(ctx context.Context) error {
	for _, d := range p.deps {
		if err := d.svc.Up(ctx); err != nil {
			return fmt.Errorf("process: dependency %s: %w", d.spec.Name, err)
		}
	}
	for _, r := range p.reps {
		if err := p.up(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

func (p *Service) up(ctx context.Context, r *replica) error {
	r.op.Lock()
	defer r.op.Unlock()
	p.mu.Lock()
	pr, stopped := r.cur, p.stopped
	down, ending, ready := pr.exited(), pr.ending, pr.ready
	p.mu.Unlock()
	switch {
	case stopped:
		return fmt.Errorf("process: replica %d: %w", r.index, ErrStopped)
	case down && ending == "":
		return exitedOnItsOwn(r, pr)
	case down:
		note(r.out, "replica %d: pid %d was left down (%s); starting it again on port %d", r.index, pr.pid, ending, pr.port)
		next, err := p.launch(r, pr.port)
		if err != nil {
			return err
		}
		return p.waitReady(ctx, r, next)
	case !ready:
		return p.waitReady(ctx, r, pr)
	}
	// One left SIGSTOPped (a pause whose stop could not be confirmed) goes on.
	procgroup.Send(pr.pid, procgroup.SigCont)
	return nil
}

func (p *Service) signal(i int, sig procgroup.Signal) error {
	r, err := p.replica(i)
	if err != nil {
		return err
	}
	r.op.Lock()
	defer r.op.Unlock()
	pr, err := p.claim(r, "")
	if err != nil {
		return err
	}
	p.mu.Lock()
	ending := pr.ending
	p.mu.Unlock()
	if ending != "" {
		return fmt.Errorf("process: replica %d (pid %d) is not running (ended by %s); Restart starts it again", r.index, pr.pid, ending)
	}
	if err := procgroup.Send(pr.pid, sig); err != nil {
		return fmt.Errorf("process: replica %d: %v to process group %d: %w", r.index, sig, pr.pid, err)
	}
	if sig != procgroup.SigStop {
		return nil
	}
	deadline := time.NewTimer(killWait)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !procgroup.Stopped(pr.pid) {
		select {
		case <-deadline.C:
			return fmt.Errorf("process: replica %d: process group %d did not stop within %s of SIGSTOP", r.index, pr.pid, killWait)
		case <-tick.C:
		}
	}
	return nil
}

// end ends pr's process group: with a grace period, SIGTERM and up to grace
// (or until ctx is done) for the leader to exit; then SIGKILL to the group.
// It returns once the leader is reaped and no member of the group runs.
func (pr *proc) end(ctx context.Context, grace time.Duration) error {
	if grace > 0 && !pr.exited() {
		procgroup.Send(pr.pid, procgroup.SigTerm)
		procgroup.Send(pr.pid, procgroup.SigCont) // a paused group acts on SIGTERM only once continued
		t := time.NewTimer(grace)
		select {
		case <-pr.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	// Also after a graceful exit: a wrapper that exited may have left the
	// real server or its children behind in the group.
	procgroup.Send(pr.pid, procgroup.SigKill)
	deadline := time.NewTimer(killWait)
	defer deadline.Stop()
	select {
	case <-pr.done:
	case <-deadline.C:
		return fmt.Errorf("pid %d did not exit within %s of SIGKILL", pr.pid, killWait)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for procgroup.Running(pr.pid) {
		select {
		case <-deadline.C:
			return fmt.Errorf("process group %d still runs %s after SIGKILL", pr.pid, killWait)
		case <-tick.C:
		}
		procgroup.Send(pr.pid, procgroup.SigKill)
	}
	drain := time.NewTimer(outputDrain)
	defer drain.Stop()
	select {
	case <-pr.copied:
	case <-drain.C:
		pr.output.Close() // held by something that left the group
		<-pr.copied
	}
	return nil
}

// settle gives the output of a process that has exited a moment to arrive,
// unless something it left running holds the pipe.
func (pr *proc) settle() {
	t := time.NewTimer(outputSettle)
	defer t.Stop()
	select {
	case <-pr.copied:
	case <-t.C:
	}
}
