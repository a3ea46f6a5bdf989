// Package process runs the service under test as replicas that idemstress
// starts, restarts, crashes, pauses and stops. It needs process groups and
// POSIX signals (package procgroup), so it runs on Linux and other Unix
// systems; elsewhere Start fails with procgroup.ErrUnsupported. Linux does
// more than the others can: replicas die with idemstress, a port taken by
// another process is not mistaken for a ready replica, and Pause returns
// once every thread has stopped.
package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/idemstress/idemstress/internal/atomicfile"
	"github.com/idemstress/idemstress/internal/logtail"
	"github.com/idemstress/idemstress/internal/procgroup"
	"github.com/idemstress/idemstress/internal/redact"
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
	// Dependencies are started before the replicas and stopped after
	// them; their {dep.NAME.url} (addr, port, data_dir) placeholders are
	// substituted in Command and Env.
	Dependencies []DependencySpec `yaml:"dependencies" json:"dependencies,omitempty"`
	// Log, when set, is a file that every replica's and dependency's
	// output (stderr and stdout) is appended to, each line after who
	// wrote it ("replica 0: ", "redis: "). Without it their output is
	// kept only to quote in errors.
	Log string `yaml:"log" json:"log,omitempty"`
	// Front, when set, is asked for each dependency once it has started
	// (name and 127.0.0.1:port) for the address the service is to reach
	// it at instead: a proxy in front of it. Its {dep.NAME.url}, addr and
	// port placeholders then name that address; its restarts and crashes
	// happen behind it, on its own port. Not part of the contract file.
	Front func(name, addr string) (string, error) `yaml:"-" json:"-"`

	// logTo is where a dependency's lines go: its service's log.
	logTo io.Writer
	// probe, when set, is a replica's ready check past accepting
	// connections (a dependency's ReadyCheck).
	probe func(ctx context.Context, addr string) bool
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
	// outputLines is how many lines of a replica's output an error quotes.
	outputLines = 30
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
	deps  []*dependency

	mu      sync.Mutex // guards stopped, ports, and every replica's port and cur
	stopped bool
	ports   map[int]bool // picked for one of our replicas, taken or not

	stopOnce sync.Once
	stopErr  error
	// logFile is Spec.Log opened, closed by Stop once everything ended.
	logFile *os.File
}

// Start starts spec.Replicas replicas, each on its own free
// 127.0.0.1 port, and waits until every one accepts connections. Replica 0
// starts first, the others once it is ready, so that a service that migrates
// its schema at startup does so once. ctx bounds only the startup (cancel
// it to abandon a start; there is nothing to Stop yet): the replicas run
// until Stop. On failure it stops what it started and returns an error with
// the tail of the failing replica's output.
func Start(ctx context.Context, spec Spec, databaseURL string) (*Service, error) {
	if err := procgroup.CheckSupported(); err != nil {
		return nil, err
	}
	spec, err := spec.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Service{spec: spec, dbURL: databaseURL, ports: map[int]bool{}}
	if spec.Log != "" {
		f, err := atomicfile.Append(spec.Log)
		if err != nil {
			return nil, fmt.Errorf("process.log: %w", err)
		}
		// Masked as the terminal is: the service may print its secrets.
		p.logFile, p.spec.logTo = f, &lockedWriter{w: redact.Writer{W: f}}
	}
	for i := range spec.Replicas {
		log := p.spec.logTo // a dependency's: its lines already go after its name
		if spec.Log != "" {
			log = prefixed(log, fmt.Sprintf("replica %d: ", i))
		}
		p.reps = append(p.reps, &replica{index: i, out: logtail.New(outputLines, log)})
	}
	err = p.startDependencies(ctx)
	if err == nil {
		err = p.startReplica(ctx, p.reps[0])
	}
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

// MaxReplicas bounds Spec.Replicas: a race shows with two or three
// replicas, and each is a process with its own connections to the database.
const MaxReplicas = 64

// Check reports a spec that cannot start a service whatever happens: no
// command, a bad replica count, ready_path, env entry or directory. It is
// the contract's mistake, found before anything is started.
func (s Spec) Check() error {
	_, err := s.withDefaults()
	return err
}

func (s Spec) withDefaults() (Spec, error) {
	if len(s.Command) == 0 || s.Command[0] == "" {
		return s, errors.New(`process.command: empty; want the service's argv, e.g. ["./ticketsvc", "-listen", "127.0.0.1:{port}"]`)
	}
	if s.Replicas < 0 || s.Replicas > MaxReplicas {
		return s, fmt.Errorf("process.replicas: %d; want 1 to %d (0 means 1)", s.Replicas, MaxReplicas)
	}
	if s.Replicas == 0 {
		s.Replicas = 1
	}
	if s.Ready < 0 || s.StopTimeout < 0 {
		return s, fmt.Errorf("process.ready_timeout %s, stop_timeout %s: want positive durations such as 30s (or leave them out for the defaults, %s and %s)", s.Ready, s.StopTimeout, defaultReady, defaultStopTimeout)
	}
	if s.Ready == 0 {
		s.Ready = defaultReady
	}
	if s.StopTimeout == 0 {
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
	return s, s.checkDependencies()
}

func (p *Service) replica(i int) (*replica, error) {
	if i < 0 || i >= len(p.reps) {
		return nil, fmt.Errorf("process: replica %d does not exist (replicas 0..%d)", i, len(p.reps)-1)
	}
	return p.reps[i], nil
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
	return r.out.Since(0)
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
	note(r.out, "kill of replica %d: pid %d ended (%s); down until it is started again", r.index, pr.pid, exitStatus(pr.err))
	return nil
}

// Pause stops replica i's process group with SIGSTOP: connections are still
// accepted by the kernel, nothing is answered. On Linux it returns once
// every thread of the group has stopped: SIGSTOP wakes one thread to stop
// the others, and until it runs, the rest go on answering. Other systems
// cannot tell, and it returns once SIGSTOP is sent.
func (p *Service) Pause(i int) error { return p.signal(i, procgroup.SigStop) }

// Resume continues a paused replica with SIGCONT.
func (p *Service) Resume(i int) error { return p.signal(i, procgroup.SigCont) }

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
		// The service's key store goes after the service.
		p.stopErr = errors.Join(append(errs, p.stopDependencies())...)
		if p.logFile != nil {
			p.stopErr = errors.Join(p.stopErr, p.logFile.Close())
		}
	})
	return p.stopErr
}
