package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// DependencySpec is something the service needs that idemstress starts
// beside it, hands to it and faults (contract file: process.dependencies):
// its key store, say a Redis. It runs as a process group of its own on a
// free 127.0.0.1 port, started before the service's replicas and stopped
// after them; a plan may restart or crash it (dep-restart, dep-crash), and
// it comes back on the same port and data directory, as a real one does.
type DependencySpec struct {
	// Name is how the service's command and env refer to it:
	// {dep.NAME.url}, {dep.NAME.addr}, {dep.NAME.port}, {dep.NAME.data_dir}.
	Name string `yaml:"name" json:"name"`
	// Command is argv; {port} and {data_dir} are substituted in every
	// element (and in Env).
	Command []string `yaml:"command" json:"command"`
	// URL is what the service is handed as {dep.NAME.url}, with {port},
	// {addr} and {data_dir} substituted; default "{addr}" (127.0.0.1:port).
	URL string `yaml:"url" json:"url,omitempty"`
	// Ready says when it is ready: by default once it accepts TCP
	// connections; with Send, once the answer to Send starts with Expect.
	Ready ReadyCheck `yaml:"ready" json:"ready,omitempty"`
	// DataDir is where it keeps its data, kept across its restarts and
	// crashes; default a fresh temporary directory, removed at the end.
	DataDir string `yaml:"data_dir" json:"data_dir,omitempty"`
	// StopTimeout is how long a graceful stop may take before SIGKILL;
	// default 5s.
	StopTimeout time.Duration `yaml:"stop_timeout" json:"stop_timeout,omitempty"`
	// Env is extra KEY=VALUE entries.
	Env []string `yaml:"env" json:"env,omitempty"`
}

// ReadyCheck is a dependency's ready check: a few bytes sent on a fresh
// connection and the start of the answer that says it is ready (Redis:
// "PING\r\n" and "+PONG"; it answers "-LOADING" while it reads its data
// back after a restart, and is not ready then).
type ReadyCheck struct {
	Send   string `yaml:"send" json:"send,omitempty"`
	Expect string `yaml:"expect" json:"expect,omitempty"`
	// Timeout bounds the wait after each start; default 30s.
	Timeout time.Duration `yaml:"timeout" json:"timeout,omitempty"`
}

// dependency is a dependency that idemstress started.
type dependency struct {
	spec    DependencySpec
	svc     *Service
	dataDir string
	// tmp says dataDir is ours to remove.
	tmp bool
	// front is the address the service reaches it at (Spec.Front), ""
	// for its own.
	front string
}

var depName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// depPlaceholder finds the {dep.NAME.FIELD} placeholders of a string.
var depPlaceholder = regexp.MustCompile(`\{dep\.([^.{}]*)\.([^.{}]*)\}`)

// depFields are the fields a {dep.NAME.FIELD} placeholder may name.
var depFields = []string{"url", "addr", "port", "data_dir"}

// checkDependencies refuses dependencies that cannot start, and a
// placeholder of the service's command or env that names none of them.
func (s Spec) checkDependencies() error {
	names := map[string]bool{}
	for i, d := range s.Dependencies {
		switch {
		case !depName.MatchString(d.Name):
			return fmt.Errorf("process.dependencies[%d].name %q: want a short lower-case name such as redis (letters, digits, _)", i, d.Name)
		case names[d.Name]:
			return fmt.Errorf("process.dependencies[%d].name %q: declared twice", i, d.Name)
		case len(d.Command) == 0 || d.Command[0] == "":
			return fmt.Errorf(`process.dependencies[%d] (%s).command: empty; want its argv, e.g. ["redis-server", "--port", "{port}", "--dir", "{data_dir}"]`, i, d.Name)
		case d.Ready.Expect != "" && d.Ready.Send == "":
			return fmt.Errorf("process.dependencies[%d] (%s).ready: expect without send; want both (send: \"PING\\r\\n\", expect: \"+PONG\") or neither", i, d.Name)
		case d.Ready.Timeout < 0 || d.StopTimeout < 0:
			return fmt.Errorf("process.dependencies[%d] (%s): negative timeout", i, d.Name)
		}
		for j, kv := range d.Env {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return fmt.Errorf("process.dependencies[%d] (%s).env[%d] %q: want KEY=VALUE", i, d.Name, j, kv)
			}
		}
		names[d.Name] = true
	}
	for _, a := range slices.Concat(s.Command, s.Env) {
		for _, m := range depPlaceholder.FindAllStringSubmatch(a, -1) {
			if !names[m[1]] {
				return fmt.Errorf("process: %q names dependency %q, which process.dependencies does not declare", a, m[1])
			}
			if !slices.Contains(depFields, m[2]) {
				return fmt.Errorf("process: %q: {dep.%s.%s}: want one of %v", a, m[1], m[2], depFields)
			}
		}
	}
	return nil
}

// startDependency starts d and waits until it is ready.
func startDependency(ctx context.Context, d DependencySpec, log io.Writer) (*dependency, error) {
	dep := &dependency{spec: d, dataDir: d.DataDir}
	if dep.dataDir == "" {
		dir, err := os.MkdirTemp("", "idemstress-dep-"+d.Name+"-")
		if err != nil {
			return nil, fmt.Errorf("process: dependency %s: data directory: %w", d.Name, err)
		}
		dep.dataDir, dep.tmp = dir, true
	}
	sub := strings.NewReplacer("{data_dir}", dep.dataDir)
	spec := Spec{Replicas: 1, Ready: d.Ready.Timeout, StopTimeout: d.StopTimeout, logTo: log}
	for _, a := range d.Command {
		spec.Command = append(spec.Command, sub.Replace(a))
	}
	for _, kv := range d.Env {
		spec.Env = append(spec.Env, sub.Replace(kv))
	}
	if d.Ready.Send != "" {
		spec.probe = answers(d.Ready.Send, d.Ready.Expect)
	}
	svc, err := Start(ctx, spec, "")
	if err != nil {
		dep.removeData()
		return nil, fmt.Errorf("process: dependency %s: %w", d.Name, err)
	}
	dep.svc = svc
	return dep, nil
}

// Name is the dependency's name.
func (d *dependency) Name() string { return d.spec.Name }

// Addr is "127.0.0.1:PORT", the same across restarts.
func (d *dependency) Addr() string { return d.svc.Addrs()[0] }

// URL is what the service is handed as {dep.NAME.url}.
func (d *dependency) URL() string {
	u := d.spec.URL
	if u == "" {
		u = "{addr}"
	}
	return d.sub().Replace(u)
}

// served is the address the service reaches the dependency at: a proxy's
// in front of it (Spec.Front), or its own.
func (d *dependency) served() string {
	if d.front != "" {
		return d.front
	}
	return d.Addr()
}

// DataDir is where the dependency keeps its data.
func (d *dependency) DataDir() string { return d.dataDir }

func (d *dependency) sub() *strings.Replacer {
	addr := d.served()
	_, port, _ := net.SplitHostPort(addr)
	return strings.NewReplacer("{addr}", addr, "{port}", port, "{data_dir}", d.dataDir)
}

// placeholders are the {dep.NAME.FIELD} substitutions of the dependency.
func (d *dependency) placeholders() []string {
	_, port, _ := net.SplitHostPort(d.served())
	n := d.spec.Name
	return []string{"{dep." + n + ".url}", d.URL(), "{dep." + n + ".addr}", d.served(), "{dep." + n + ".port}", port,
		"{dep." + n + ".data_dir}", d.dataDir}
}

// Restart stops the dependency gracefully (SIGTERM, then SIGKILL after its
// stop timeout) and starts it again on the same port and data directory,
// waiting until it is ready.
func (d *dependency) Restart(ctx context.Context) error {
	if err := d.svc.Restart(ctx, 0); err != nil {
		return fmt.Errorf("process: dependency %s: %w", d.spec.Name, err)
	}
	return nil
}

// Crash SIGKILLs the dependency and starts it again on the same port and
// data directory, waiting until it is ready.
func (d *dependency) Crash(ctx context.Context) error {
	if err := d.svc.Crash(ctx, 0); err != nil {
		return fmt.Errorf("process: dependency %s: %w", d.spec.Name, err)
	}
	return nil
}

// Output is the tail of the dependency's output over all its restarts.
func (d *dependency) Output() string { return d.svc.Output(0) }

// stop ends the dependency and removes a data directory of ours.
func (d *dependency) stop() error {
	err := d.svc.Stop()
	d.removeData()
	return err
}

func (d *dependency) removeData() {
	if d.tmp {
		_ = os.RemoveAll(d.dataDir)
	}
}

// answers is a ready probe: a fresh connection to addr is sent send, and
// is ready once what comes back starts with expect.
func answers(send, expect string) func(context.Context, string) bool {
	return func(ctx context.Context, addr string) bool {
		d := net.Dialer{Timeout: 250 * time.Millisecond}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return false
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(time.Second))
		if _, err := conn.Write([]byte(send)); err != nil {
			return false
		}
		got := make([]byte, 0, len(expect))
		buf := make([]byte, len(expect))
		for len(got) < len(expect) {
			n, err := conn.Read(buf[:len(expect)-len(got)])
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		return bytes.Equal(got, []byte(expect))
	}
}

// startDependencies starts the spec's dependencies, in order, and
// substitutes their placeholders in the service's command and env.
func (p *Service) startDependencies(ctx context.Context) error {
	var subs []string
	for _, d := range p.spec.Dependencies {
		dep, err := startDependency(ctx, d, prefixed(p.spec.logTo, d.Name+": "))
		if err != nil {
			return err
		}
		p.deps = append(p.deps, dep)
		if p.spec.Front != nil {
			if dep.front, err = p.spec.Front(d.Name, dep.Addr()); err != nil {
				return fmt.Errorf("process: dependency %s: the proxy in front of it: %w", d.Name, err)
			}
		}
		subs = append(subs, dep.placeholders()...)
	}
	if len(subs) == 0 {
		return nil
	}
	r := strings.NewReplacer(subs...)
	cmd, env := slices.Clone(p.spec.Command), slices.Clone(p.spec.Env)
	for i := range cmd {
		cmd[i] = r.Replace(cmd[i])
	}
	for i := range env {
		env[i] = r.Replace(env[i])
	}
	p.spec.Command, p.spec.Env = cmd, env
	return nil
}

// Dependency is the started dependency called name, nil when there is none.
func (p *Service) Dependency(name string) *dependency {
	for _, d := range p.deps {
		if d.spec.Name == name {
			return d
		}
	}
	return nil
}

// stopDependencies stops the dependencies, the last started first.
func (p *Service) stopDependencies() error {
	var errs []error
	for i := len(p.deps) - 1; i >= 0; i-- {
		errs = append(errs, p.deps[i].stop())
	}
	return errors.Join(errs...)
}
