package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// Spec is how to start the service (contract file: `process:`).
type Spec struct {
	// Command is argv; {port} and {database_url} are substituted in every
	// element. Also passed as env PORT and DATABASE_URL.
	Command []string `yaml:"command" json:"command"`
	// Replicas is how many copies run side by side; default 1.
	Replicas int `yaml:"replicas" json:"replicas"`
	// Ready bounds the wait, default 30s, until each replica accepts TCP
	// connections on 127.0.0.1:port.
	Ready time.Duration `yaml:"ready_timeout" json:"ready_timeout"`
	// ReadyPath, when set ("/healthz"), makes a replica ready only once a GET
	// of it answers 2xx, not as soon as it accepts connections.
	ReadyPath string `yaml:"ready_path" json:"ready_path,omitempty"`
	// StopTimeout is how long a replica may take to exit after SIGTERM before
	// it is SIGKILLed; default 5s.
	StopTimeout time.Duration `yaml:"stop_timeout" json:"stop_timeout,omitempty"`
	// Dir is the working directory; a relative Command[0] is found from it.
	Dir string `yaml:"dir" json:"dir,omitempty"`
	// Env is extra KEY=VALUE entries, after PORT and DATABASE_URL so they may
	// override them; {port} and {database_url} are substituted in them too.
	Env []string `yaml:"env" json:"env,omitempty"`
}

const (
	defaultReady       = 30 * time.Second
	defaultStopTimeout = 5 * time.Second
	// killWait bounds how long a SIGKILLed process group may take to go.
	killWait = 5 * time.Second
	// outputDrain bounds how long output is read after a replica's group is
	// gone, should something that escaped the group hold the pipe.
	outputDrain = 2 * time.Second
	// outputSettle bounds the wait for the last output of a replica that
	// exited on its own, before it is quoted in an error.
	outputSettle = 200 * time.Millisecond
	// portRetries is how many times a replica whose port was taken between
	// picking and binding it is started again on another port.
	portRetries = 3
	readyPoll   = 20 * time.Millisecond
	outputLines = 30
	outputKeep  = 64 << 10
)

var (
	// ErrExited marks an error about a replica that exited on its own, not
	// because idemstress stopped it: the service crashed.
	ErrExited = errors.New("exited on its own")
	// ErrStopped marks a call on Service after Stop.
	ErrStopped = errors.New("processes stopped")

	errPortTaken = errors.New("port taken")
)

// Service is the service running as replicas started by idemstress. Each
// replica is a process group of its own, so that a signal reaches whatever
// the command started (a shell or `go run` wrapper and the real server).
type Service struct {
	spec  Spec // defaults filled in
	dbURL string
	reps  []*replica

	mu      sync.Mutex // guards stopped, ports, and every replica's port and cur
	stopped bool
	ports   map[int]bool // picked for one of our replicas, taken or not

	stopOnce sync.Once
	stopErr  error
}

type replica struct {
	index int
	op    sync.Mutex // one Restart, Crash, Kill, Pause or Resume at a time
	out   *outputTail
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
	// output is the read end of the pipe the process group writes to;
	// copied is closed once all of it is in the replica's outputTail.
	output *os.File
	copied chan struct{}
	// ending says why idemstress ended it; "" while it has not. Guarded by
	// Service.mu.
	ending string
}

func (pr *proc) exited() bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

// Start starts spec.Replicas replicas, each on its own free
// 127.0.0.1 port, and waits until every one accepts connections. Replica 0
// starts first, the others once it is ready, so that a service that migrates
// its schema at startup does so once. ctx bounds only the startup (cancel
// it to abandon a start; there is nothing to Stop yet): the replicas run
// until Stop. On failure it stops what it started and returns an error with
// the tail of the failing replica's output.
func Start(ctx context.Context, spec Spec, databaseURL string) (*Service, error) {
	spec, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Service{spec: spec, dbURL: databaseURL, ports: map[int]bool{}}
	for i := range spec.Replicas {
		p.reps = append(p.reps, &replica{index: i, out: &outputTail{}})
	}
	err = p.startReplica(ctx, p.reps[0])
	if err == nil && len(p.reps) > 1 {
		g, gctx := errgroup.WithContext(ctx)
		for _, r := range p.reps[1:] {
			g.Go(func() error { return p.startReplica(gctx, r) })
		}
		err = g.Wait()
	}
	if err != nil {
		if stopErr := p.Stop(); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
		return nil, err
	}
	return p, nil
}

func (s Spec) withDefaults() (Spec, error) {
	if len(s.Command) == 0 || s.Command[0] == "" {
		return s, errors.New(`process.command: empty; want the service's argv, e.g. ["./ticketsvc", "-listen", "127.0.0.1:{port}"]`)
	}
	if s.Replicas < 0 {
		return s, fmt.Errorf("process.replicas: %d; want 1 or more (0 means 1)", s.Replicas)
	}
	if s.Replicas == 0 {
		s.Replicas = 1
	}
	if s.Ready <= 0 {
		s.Ready = defaultReady
	}
	if s.StopTimeout <= 0 {
		s.StopTimeout = defaultStopTimeout
	}
	if s.ReadyPath != "" && !strings.HasPrefix(s.ReadyPath, "/") {
		return s, fmt.Errorf("process.ready_path %q: want an absolute path such as /healthz", s.ReadyPath)
	}
	for i, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return s, fmt.Errorf("process.env[%d] %q: want KEY=VALUE", i, kv)
		}
	}
	if s.Dir != "" {
		if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
			return s, fmt.Errorf("process.dir %q: not a directory the service can run in", s.Dir)
		}
	}
	return s, nil
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
		r.out.note("port %d was taken by another process; starting replica %d again on another port", port, r.index)
	}
}

// pickPort returns a port that is free now and not one of ours.
func (p *Service) pickPort() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range 10 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("process: finding a free port on 127.0.0.1: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !p.ports[port] {
			p.ports[port] = true
			return port, nil
		}
	}
	return 0, errors.New("process: finding a free port on 127.0.0.1: the system keeps offering ports already in use by replicas")
}

// exitedForPort reports whether pr exited because its port was in use: it
// says so, or the port is taken now.
func exitedForPort(pr *proc, out *outputTail) bool {
	if !pr.exited() {
		return false
	}
	said := strings.ToLower(out.since(pr.mark))
	if strings.Contains(said, "address already in use") || strings.Contains(said, "eaddrinuse") {
		return true
	}
	l, err := net.Listen("tcp", addrOf(pr.port))
	if err != nil {
		return true
	}
	l.Close()
	return false
}

func addrOf(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

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
	// A process group of its own: signals go to everything the command
	// started, and a terminal's SIGINT to idemstress does not reach it
	// behind Stop's back. Pdeathsig kills the leader should idemstress die
	// without stopping it; it fires when the OS thread that started the
	// child exits, and the Go runtime retires only threads locked with
	// runtime.LockOSThread, which nothing here does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	// Under p.mu so that Stop either sees this process or prevents it.
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		rd.Close()
		return nil, fmt.Errorf("process: replica %d: %w", r.index, ErrStopped)
	}
	mark := r.out.total()
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

// waitReady waits until pr accepts connections (and answers ReadyPath).
func (p *Service) waitReady(ctx context.Context, r *replica, pr *proc) error {
	addr := addrOf(pr.port)
	var client *http.Client
	if p.spec.ReadyPath != "" {
		client = &http.Client{
			Transport:     &http.Transport{DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		defer client.CloseIdleConnections()
	}
	deadline := time.NewTimer(p.spec.Ready)
	defer deadline.Stop()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	for {
		switch ready(ctx, addr, pr, client, p.spec.ReadyPath) {
		case readyYes:
			return nil
		case readyForeign:
			return fmt.Errorf("process: replica %d (pid %d): another process listens on its port %d, taken since it was picked: %w",
				r.index, pr.pid, pr.port, errPortTaken)
		}
		select {
		case <-pr.done:
			p.mu.Lock()
			stopped := p.stopped
			p.mu.Unlock()
			if stopped {
				return fmt.Errorf("process: replica %d: %w while it started", r.index, ErrStopped)
			}
			pr.settle()
			return fmt.Errorf("process: replica %d (pid %d) exited before accepting connections on %s: %s%s",
				r.index, pr.pid, addr, exitStatus(pr.err), r.out.tailSince(pr.mark))
		case <-ctx.Done():
			return fmt.Errorf("process: replica %d (pid %d): waiting for %s to accept connections: %w", r.index, pr.pid, addr, ctx.Err())
		case <-deadline.C:
			what := "accept connections on " + addr
			if client != nil {
				what = "answer 2xx to GET http://" + addr + p.spec.ReadyPath
			}
			return fmt.Errorf("process: replica %d (pid %d) did not %s within %s "+
				"(the command must listen on {port} or $PORT; raise process.ready_timeout if it starts slowly)%s",
				r.index, pr.pid, what, p.spec.Ready, r.out.tailSince(pr.mark))
		case <-tick.C:
		}
	}
}

type readiness int

const (
	readyNot readiness = iota
	readyYes
	readyForeign // the port answers, but another process listens on it
)

// ready tells whether pr is ready on addr.
func ready(ctx context.Context, addr string, pr *proc, client *http.Client, path string) readiness {
	d := net.Dialer{Timeout: 250 * time.Millisecond}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return readyNot
	}
	// Polling a port in the ephemeral range can connect to itself (TCP
	// simultaneous open) when nothing listens yet.
	self := conn.LocalAddr().String() == conn.RemoteAddr().String()
	conn.Close()
	if self || pr.exited() {
		return readyNot
	}
	// The port was free when picked; whoever took it since and answers is
	// not pr, and calls must not go there.
	if whoListens(pr.pid, pr.port) == listenerForeign {
		return readyForeign
	}
	if client == nil {
		return readyYes
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return readyNot
	}
	resp, err := client.Do(req)
	if err != nil {
		return readyNot
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return readyNot
	}
	return readyYes
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func (p *Service) replica(i int) (*replica, error) {
	if i < 0 || i >= len(p.reps) {
		return nil, fmt.Errorf("process: replica %d does not exist (replicas 0..%d)", i, len(p.reps)-1)
	}
	return p.reps[i], nil
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
		r.index, pr.pid, pr.port, ErrExited, exitStatus(pr.err), r.out.tailSince(pr.mark))
}

// Addrs is "127.0.0.1:PORT" of each replica, fixed for the life of p: a
// restarted replica listens on the same port.
func (p *Service) Addrs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	addrs := make([]string, len(p.reps))
	for i, r := range p.reps {
		addrs[i] = addrOf(r.port)
	}
	return addrs
}

// PID is the process ID of replica i's current process (its process group
// ID too), 0 for no such replica.
func (p *Service) PID(i int) int {
	r, err := p.replica(i)
	if err != nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return r.cur.pid
}

// Alive reports whether replica i's current process is running (a paused
// one is).
func (p *Service) Alive(i int) bool {
	r, err := p.replica(i)
	if err != nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !r.cur.exited()
}

// Exited is an error wrapping ErrExited when replica i's current process
// exited on its own, with its exit status and last output; nil while it
// runs or when idemstress ended it.
func (p *Service) Exited(i int) error {
	r, err := p.replica(i)
	if err != nil {
		return err
	}
	p.mu.Lock()
	pr := r.cur
	onItsOwn := pr.exited() && pr.ending == ""
	p.mu.Unlock()
	if onItsOwn {
		return exitedOnItsOwn(r, pr)
	}
	return nil
}

// Output is the tail of replica i's output, stderr and stdout together,
// over all its restarts.
func (p *Service) Output(i int) string {
	r, err := p.replica(i)
	if err != nil {
		return ""
	}
	return r.out.since(0)
}

// Restart stops replica i gracefully (SIGTERM, then SIGKILL after
// StopTimeout), starts it again on the same port and waits until it is
// ready. A replica that idemstress killed is simply started again; one that
// exited on its own is an error (ErrExited). ctx bounds the waits: cancelled
// during the graceful stop, the replica is killed and not started again.
func (p *Service) Restart(ctx context.Context, i int) error {
	return p.cycle(ctx, i, "restart", p.spec.StopTimeout)
}

// Crash SIGKILLs replica i, waits until it is gone, starts it again on the
// same port and waits until it is ready.
func (p *Service) Crash(ctx context.Context, i int) error {
	return p.cycle(ctx, i, "crash", 0)
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
	r.out.note("%s of replica %d: pid %d ended (%s); starting it again on port %d", reason, r.index, pr.pid, exitStatus(pr.err), pr.port)
	next, err := p.launch(r, pr.port)
	if err != nil {
		return err
	}
	return p.waitReady(ctx, r, next)
}

// Kill SIGKILLs replica i's process group and waits until it is gone,
// without starting it again (Restart does).
func (p *Service) Kill(i int) error {
	r, err := p.replica(i)
	if err != nil {
		return err
	}
	r.op.Lock()
	defer r.op.Unlock()
	pr, err := p.claim(r, "kill")
	if err != nil {
		return err
	}
	if err := pr.end(context.Background(), 0); err != nil {
		return fmt.Errorf("process: replica %d: kill: %w", r.index, err)
	}
	return nil
}

// Pause stops replica i's process group with SIGSTOP: connections are still
// accepted by the kernel, nothing is answered. It returns once every thread
// of the group has stopped: SIGSTOP wakes one thread to stop the others, and
// until it runs, the rest go on answering.
func (p *Service) Pause(i int) error { return p.signal(i, syscall.SIGSTOP) }

// Resume continues a paused replica with SIGCONT.
func (p *Service) Resume(i int) error { return p.signal(i, syscall.SIGCONT) }

func (p *Service) signal(i int, sig syscall.Signal) error {
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
	if err := syscall.Kill(-pr.pid, sig); err != nil {
		return fmt.Errorf("process: replica %d: %v to process group %d: %w", r.index, sig, pr.pid, err)
	}
	if sig != syscall.SIGSTOP {
		return nil
	}
	deadline := time.NewTimer(killWait)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !groupStopped(pr.pid) {
		select {
		case <-deadline.C:
			return fmt.Errorf("process: replica %d: process group %d did not stop within %s of SIGSTOP", r.index, pr.pid, killWait)
		case <-tick.C:
		}
	}
	return nil
}

// Stop ends every replica: SIGTERM to its process group, up to StopTimeout
// for it to exit, then SIGKILL to the group. It returns once no process of
// any group is left running. Stop is idempotent, and safe to call from a
// signal handler while other calls run: those then fail with ErrStopped.
func (p *Service) Stop() error {
	p.stopOnce.Do(func() {
		p.mu.Lock()
		p.stopped = true
		var procs []*proc
		for _, r := range p.reps {
			if pr := r.cur; pr != nil {
				if !pr.exited() && pr.ending == "" {
					pr.ending = "stop"
				}
				procs = append(procs, pr)
			}
		}
		p.mu.Unlock()
		errs := make([]error, len(procs))
		var wg sync.WaitGroup
		for k, pr := range procs {
			wg.Go(func() { errs[k] = pr.end(context.Background(), p.spec.StopTimeout) })
		}
		wg.Wait()
		p.stopErr = errors.Join(errs...)
	})
	return p.stopErr
}

// end ends pr's process group: with a grace period, SIGTERM and up to grace
// (or until ctx is done) for the leader to exit; then SIGKILL to the group.
// It returns once the leader is reaped and no member of the group runs.
func (pr *proc) end(ctx context.Context, grace time.Duration) error {
	if grace > 0 && !pr.exited() {
		syscall.Kill(-pr.pid, syscall.SIGTERM)
		syscall.Kill(-pr.pid, syscall.SIGCONT) // a paused group acts on SIGTERM only once continued
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
	syscall.Kill(-pr.pid, syscall.SIGKILL)
	deadline := time.NewTimer(killWait)
	defer deadline.Stop()
	select {
	case <-pr.done:
	case <-deadline.C:
		return fmt.Errorf("pid %d did not exit within %s of SIGKILL", pr.pid, killWait)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for groupRunning(pr.pid) {
		select {
		case <-deadline.C:
			return fmt.Errorf("process group %d still runs %s after SIGKILL", pr.pid, killWait)
		case <-tick.C:
		}
		syscall.Kill(-pr.pid, syscall.SIGKILL)
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

// groupRunning reports whether a process of group pgid runs. Zombies do not
// count: they hold no port and no file, and orphans may stay zombies for
// good where PID 1 is not an init that reaps them (containers).
func groupRunning(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	members, ok := groupMembers(pgid)
	return !ok || len(members) > 0
}

type listener int

const (
	listenerUnknown listener = iota // /proc cannot tell
	listenerNone
	listenerOurs
	listenerForeign
)

// whoListens finds the sockets listening on port in /proc/net/tcp{,6} and
// tells whether a process of group pgid holds one of them.
func whoListens(pgid, port int) listener {
	sockets := map[string]bool{}
	read := false
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		read = true
		// "sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode"
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // TCP_LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			if n, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(n) == port {
				sockets["socket:["+f[9]+"]"] = true
			}
		}
	}
	if !read {
		return listenerUnknown
	}
	if len(sockets) == 0 {
		return listenerNone
	}
	members, ok := groupMembers(pgid)
	if !ok {
		return listenerUnknown
	}
	for _, pid := range members {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		fds, err := os.ReadDir(dir)
		if err != nil {
			return listenerUnknown
		}
		for _, fd := range fds {
			if link, err := os.Readlink(dir + fd.Name()); err == nil && sockets[link] {
				return listenerOurs
			}
		}
	}
	return listenerForeign
}

// groupStopped reports whether every thread of every live process of group
// pgid is stopped; true too when /proc cannot tell.
func groupStopped(pgid int) bool {
	members, ok := groupMembers(pgid)
	if !ok {
		return true
	}
	for _, pid := range members {
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue // exited meanwhile
		}
		for _, task := range tasks {
			state, _, ok := procStat("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/stat")
			if ok && state != 'T' && state != 'Z' && state != 'X' {
				return false
			}
		}
	}
	return true
}

// groupMembers are the processes of group pgid that are not zombies; ok is
// false when /proc cannot be read.
func groupMembers(pgid int) (pids []int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pgrp, ok := procStat("/proc/" + e.Name() + "/stat"); ok && pgrp == pgid && state != 'Z' && state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// procStat reads a process's (or thread's) state and process group from
// its /proc stat file.
func procStat(path string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) == 0 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}

// outputTail keeps the end of a replica's output.
type outputTail struct {
	mu      sync.Mutex
	buf     []byte
	written int64
}

func (o *outputTail) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, b...)
	o.written += int64(len(b))
	// Trim only at twice the size kept, so that a chatty service costs one
	// copy per outputKeep bytes, not one per write.
	if len(o.buf) > 2*outputKeep {
		o.buf = append(o.buf[:0], o.buf[len(o.buf)-outputKeep:]...)
	}
	return len(b), nil
}

func (o *outputTail) total() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.written
}

// note adds a line of idemstress's own to the output.
func (o *outputTail) note(format string, args ...any) {
	fmt.Fprintf(o, "--- idemstress: "+format+" ---\n", args...)
}

// since is the last outputLines lines written after mark bytes.
func (o *outputTail) since(mark int64) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.buf
	if n := o.written - mark; n < int64(len(b)) {
		b = b[len(b)-int(n):]
	}
	b = bytes.TrimRight(b, "\n")
	i := len(b)
	for range outputLines {
		if i = bytes.LastIndexByte(b[:i], '\n'); i < 0 {
			return string(b)
		}
	}
	return string(b[i+1:])
}

// tailSince is since(mark) set off for an error message.
func (o *outputTail) tailSince(mark int64) string {
	if s := o.since(mark); s != "" {
		return "; last output:\n" + s
	}
	return "; no output"
}
