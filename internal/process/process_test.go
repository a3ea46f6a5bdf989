//go:build unix

package process_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/process"
)

// echo is what testdata/echoserver answers.
type echo struct {
	PID         int      `json:"pid"`
	ChildPID    int      `json:"child_pid"`
	Args        []string `json:"args"`
	PortEnv     string   `json:"port_env"`
	DatabaseURL string   `json:"database_url"`
	Extra       string   `json:"extra"`
}

// TestProcesses starts real processes of testdata/echoserver, built once
// for all its subtests.
func TestProcesses(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/echoserver: %v\n%s", err, out)
	}
	// spec runs echoserver on {port} with flags.
	spec := func(flags ...string) process.Spec {
		return process.Spec{Command: append([]string{bin, "-listen", "127.0.0.1:{port}"}, flags...), StopTimeout: 2 * time.Second}
	}

	t.Run("replicas run on their own ports as their own processes", func(t *testing.T) {
		t.Parallel()
		s := spec()
		s.Replicas = 2
		p := start(t, s, "")
		addrs := p.Addrs()
		if len(addrs) != 2 || addrs[0] == addrs[1] {
			t.Fatalf("Addrs = %q, want two different addresses", addrs)
		}
		a, b := get(t, addrs[0]), get(t, addrs[1])
		if a.PID == b.PID || a.PID != p.PID(0) || b.PID != p.PID(1) {
			t.Errorf("PIDs answered %d and %d, PID(0..1) = %d %d; want two different ones matching", a.PID, b.PID, p.PID(0), p.PID(1))
		}
		for i, addr := range addrs {
			if !p.Alive(i) || p.Exited(i) != nil {
				t.Errorf("replica %d: Alive %v, Exited %v; want running", i, p.Alive(i), p.Exited(i))
			}
			if out := p.Output(i); !strings.Contains(out, "listening on "+addr) {
				t.Errorf("Output(%d) = %q, want its startup line", i, out)
			}
		}
	})

	t.Run("port and database URL reach argv and environment", func(t *testing.T) {
		t.Parallel()
		const db = "postgres://u:p@127.0.0.1:5432/app?sslmode=disable"
		tests := []struct {
			name     string
			spec     process.Spec
			wantArgs func(port string) []string
		}{
			{
				name: "placeholders in argv and env",
				spec: process.Spec{
					Command: []string{bin, "-listen", "127.0.0.1:{port}", "-tag", "db={database_url},port={port}"},
					Env:     []string{"ECHO_EXTRA=on {port} with {database_url}"},
				},
				wantArgs: func(port string) []string {
					return []string{"-listen", "127.0.0.1:" + port, "-tag", "db=" + db + ",port=" + port}
				},
			},
			{
				name:     "port from $PORT only",
				spec:     process.Spec{Command: []string{bin}, Env: []string{"ECHO_EXTRA=on {port} with {database_url}"}},
				wantArgs: func(string) []string { return []string{} },
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := start(t, tt.spec, db)
				_, port, _ := net.SplitHostPort(p.Addrs()[0])
				got := get(t, p.Addrs()[0])
				if !slices.Equal(got.Args, tt.wantArgs(port)) {
					t.Errorf("args %q, want %q", got.Args, tt.wantArgs(port))
				}
				if got.PortEnv != port || got.DatabaseURL != db || got.Extra != "on "+port+" with "+db {
					t.Errorf("env PORT=%q DATABASE_URL=%q ECHO_EXTRA=%q, want %q, %q and both substituted", got.PortEnv, got.DatabaseURL, got.Extra, port, db)
				}
			})
		}
	})

	t.Run("Restart is graceful and keeps the port", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec(), "")
		addr, before := p.Addrs()[0], get(t, p.Addrs()[0])
		if err := p.Restart(ctx(t), 0); err != nil {
			t.Fatalf("Restart: %v", err)
		}
		after := get(t, addr)
		if p.Addrs()[0] != addr || after.PID == before.PID {
			t.Errorf("after Restart: %s pid %d; want %s with a new pid (was %d)", p.Addrs()[0], after.PID, addr, before.PID)
		}
		if !dead(before.PID) {
			t.Errorf("old pid %d still runs", before.PID)
		}
		if out := p.Output(0); !strings.Contains(out, "SIGTERM, shutting down") || !strings.Contains(out, "restart of replica 0") {
			t.Errorf("Output = %q, want the graceful shutdown and idemstress's note", out)
		}
	})

	t.Run("Crash is SIGKILL and back on the same port", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec(), "")
		addr, before := p.Addrs()[0], get(t, p.Addrs()[0])
		if err := p.Crash(ctx(t), 0); err != nil {
			t.Fatalf("Crash: %v", err)
		}
		if after := get(t, addr); after.PID == before.PID {
			t.Errorf("after Crash: same pid %d", after.PID)
		}
		if !dead(before.PID) {
			t.Errorf("old pid %d still runs", before.PID)
		}
		out := p.Output(0)
		if strings.Contains(out, "SIGTERM") || !strings.Contains(out, "signal: killed") {
			t.Errorf("Output = %q, want a kill without SIGTERM", out)
		}
	})

	t.Run("Kill leaves the replica down until Restart", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec(), "")
		addr, pid := p.Addrs()[0], p.PID(0)
		if err := p.Kill(0); err != nil {
			t.Fatalf("Kill: %v", err)
		}
		if p.Alive(0) || !dead(pid) {
			t.Fatalf("after Kill: Alive %v, pid %d dead %v; want it gone", p.Alive(0), pid, dead(pid))
		}
		if err := p.Exited(0); err != nil {
			t.Errorf("Exited after Kill = %v, want nil: idemstress killed it", err)
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			t.Errorf("%s still accepts connections after Kill", addr)
		}
		if err := p.Pause(0); err == nil || !strings.Contains(err.Error(), "not running") {
			t.Errorf("Pause of a killed replica: %v, want an error saying it is not running", err)
		}
		if err := p.Kill(0); err != nil {
			t.Errorf("second Kill: %v, want nil", err)
		}
		if err := p.Restart(ctx(t), 0); err != nil {
			t.Fatalf("Restart after Kill: %v", err)
		}
		if got := get(t, addr); got.PID == pid || !p.Alive(0) {
			t.Errorf("after Restart: pid %d alive %v, want a new running process", got.PID, p.Alive(0))
		}
	})

	t.Run("a replica that exits on its own is recorded", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec("-exit-after", "1s"), "")
		waitFor(t, "the replica to exit", func() bool { return !p.Alive(0) })
		err := p.Exited(0)
		if !errors.Is(err, process.ErrExited) || !strings.Contains(err.Error(), "exit status 4") || !strings.Contains(err.Error(), "exiting on my own") {
			t.Errorf("Exited = %v, want ErrExited with exit status 4 and the output", err)
		}
		for name, call := range map[string]func() error{
			"Restart": func() error { return p.Restart(ctx(t), 0) },
			"Crash":   func() error { return p.Crash(ctx(t), 0) },
			"Kill":    func() error { return p.Kill(0) },
			"Pause":   func() error { return p.Pause(0) },
			"Up":      func() error { return p.Up(ctx(t)) },
		} {
			if err := call(); !errors.Is(err, process.ErrExited) {
				t.Errorf("%s after the replica exited: %v, want ErrExited", name, err)
			}
		}
	})

	t.Run("a replica that exits on its own is seen and revived", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec("-exit-after", "2s"), "")
		if e, ok := p.ExitWithin(ctx(t), 0); ok {
			t.Fatalf("ExitWithin(0) of a running replica = %+v, want none", e)
		}
		e, ok := p.ExitWithin(ctx(t), 10*time.Second)
		if !ok || e.Replica != 0 || e.Status != "exit status 4" || !strings.Contains(e.Output, "exiting on my own") || e.At.IsZero() {
			t.Fatalf("ExitWithin = %+v, %v; want replica 0, exit status 4, its last output and a time", e, ok)
		}
		pid := p.PID(0)
		if err := p.Revive(ctx(t), 0); err != nil {
			t.Fatalf("Revive: %v", err)
		}
		if got := get(t, p.Addrs()[0]); got.PID == pid || got.PID != p.PID(0) {
			t.Errorf("after Revive the replica answered as pid %d (was %d, PID(0) %d), want the new process", got.PID, pid, p.PID(0))
		}
		if err := p.Kill(0); err != nil {
			t.Fatal(err)
		}
		if e, ok := p.ExitWithin(ctx(t), 0); ok {
			t.Errorf("ExitWithin after Kill = %+v, want none: idemstress ended it", e)
		}
		if err := p.Revive(ctx(t), 0); err == nil {
			t.Errorf("Revive of a killed replica: nil, want an error naming Up")
		}
	})

	t.Run("Pause holds answers until Resume", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec(), "")
		addr := p.Addrs()[0]
		if err := p.Pause(0); err != nil {
			t.Fatalf("Pause: %v", err)
		}
		if e, err := fetch(addr, 300*time.Millisecond); err == nil {
			t.Fatalf("a paused replica answered: %+v; PID(0) %d alive %v output %q", e, p.PID(0), p.Alive(0), p.Output(0))
		}
		answered := make(chan error, 1)
		go func() {
			_, err := fetch(addr, 10*time.Second)
			answered <- err
		}()
		select {
		case err := <-answered:
			t.Fatalf("a paused replica answered: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		if err := p.Resume(0); err != nil {
			t.Fatalf("Resume: %v", err)
		}
		if err := <-answered; err != nil {
			t.Errorf("request held over the pause: %v, want an answer after Resume", err)
		}
		if !p.Alive(0) {
			t.Error("a paused replica is alive")
		}
	})

	t.Run("a paused replica is stopped too", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec(), "")
		pid := p.PID(0)
		if err := p.Pause(0); err != nil {
			t.Fatal(err)
		}
		if err := p.Stop(); err != nil || !dead(pid) {
			t.Errorf("Stop of a paused replica: %v, pid %d dead %v", err, pid, dead(pid))
		}
	})

	t.Run("Stop leaves no process of any group", func(t *testing.T) {
		t.Parallel()
		s := spec("-spawn-child")
		s.Replicas = 2
		p := start(t, s, "")
		var pids []int
		for _, addr := range p.Addrs() {
			got := get(t, addr)
			if got.ChildPID == 0 || dead(got.ChildPID) {
				t.Fatalf("replica %s: spawned child %d not running", addr, got.ChildPID)
			}
			pids = append(pids, got.PID, got.ChildPID)
		}
		// Stop from several goroutines at once, as a signal handler might.
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for k := range errs {
			wg.Go(func() { errs[k] = p.Stop() })
		}
		wg.Wait()
		for k, err := range errs {
			if err != nil {
				t.Errorf("Stop #%d: %v", k, err)
			}
		}
		for _, pid := range pids {
			if !dead(pid) {
				t.Errorf("pid %d still runs after Stop", pid)
			}
		}
		for i := range 2 {
			if members := groupMembers(p.PID(i)); len(members) > 0 {
				t.Errorf("process group %d still runs %v", p.PID(i), members)
			}
		}
		if err := p.Stop(); err != nil {
			t.Errorf("Stop again: %v, want nil", err)
		}
		if err := p.Restart(ctx(t), 0); !errors.Is(err, process.ErrStopped) {
			t.Errorf("Restart after Stop: %v, want ErrStopped", err)
		}
	})

	t.Run("Restart also ends what the replica spawned", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec("-spawn-child"), "")
		before := get(t, p.Addrs()[0])
		if err := p.Restart(ctx(t), 0); err != nil {
			t.Fatal(err)
		}
		if !dead(before.ChildPID) {
			t.Errorf("child %d of the restarted replica still runs", before.ChildPID)
		}
	})

	t.Run("SIGTERM ignored: SIGKILL after the stop timeout", func(t *testing.T) {
		t.Parallel()
		const grace = 300 * time.Millisecond
		tests := []struct {
			name string
			end  func(*process.Service) error
		}{
			{"Stop", (*process.Service).Stop},
			{"Restart", func(p *process.Service) error { return p.Restart(ctx(t), 0) }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s := spec("-ignore-term")
				s.StopTimeout = grace
				p := start(t, s, "")
				pid := p.PID(0)
				began := time.Now()
				if err := tt.end(p); err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if took := time.Since(began); took < grace || took > grace+5*time.Second {
					t.Errorf("%s took %v, want the %v grace and then a prompt SIGKILL", tt.name, took, grace)
				}
				if !dead(pid) {
					t.Errorf("pid %d survived", pid)
				}
			})
		}
	})

	t.Run("Restart cancelled during the graceful stop kills and stays down", func(t *testing.T) {
		t.Parallel()
		s := spec("-ignore-term")
		s.StopTimeout = time.Minute
		p := start(t, s, "")
		pid := p.PID(0)
		c, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		began := time.Now()
		err := p.Restart(c, 0)
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 10*time.Second {
			t.Fatalf("Restart = %v after %v, want the context's error promptly", err, time.Since(began))
		}
		if p.Alive(0) || !dead(pid) || p.Exited(0) != nil {
			t.Errorf("after a cancelled Restart: Alive %v, pid %d dead %v, Exited %v; want killed by idemstress", p.Alive(0), pid, dead(pid), p.Exited(0))
		}
		// The next plan begins with Up: it starts the replica again on its
		// port, and leaves a running one as it is.
		addr := p.Addrs()[0]
		if err := p.Up(ctx(t)); err != nil {
			t.Fatalf("Up after a cancelled Restart: %v", err)
		}
		again := p.PID(0)
		if got := get(t, addr); got.PID == pid || got.PID != again || !p.Alive(0) {
			t.Errorf("after Up: answered by pid %d (PID(0) %d, was %d), alive %v; want a new running process on %s", got.PID, again, pid, p.Alive(0), addr)
		}
		if err := p.Up(ctx(t)); err != nil || p.PID(0) != again {
			t.Errorf("Up of a running replica: %v, pid %d; want nil and pid %d left as it was", err, p.PID(0), again)
		}
		p.Kill(0) // it ignores SIGTERM: spare Stop the minute
	})

	t.Run("a command that exits at once fails the start", func(t *testing.T) {
		t.Parallel()
		_, err := process.Start(ctx(t), spec("-exit-now", "-spawn-child"), "")
		if err == nil {
			t.Fatal("Start succeeded")
		}
		msg := err.Error()
		for _, want := range []string{"replica 0", "exited before accepting connections", "exit status 3", "output line 40", "exiting at once as told"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not contain %q", msg, want)
			}
		}
		if strings.Contains(msg, "output line 5\n") {
			t.Errorf("error holds all the output, want its tail: %q", msg)
		}
		m := regexp.MustCompile(`leaving child pid (\d+)`).FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("error %q names no spawned child", msg)
		}
		if child, _ := strconv.Atoi(m[1]); !dead(child) {
			t.Errorf("the failed replica's child %d still runs", child)
		}
	})

	t.Run("a replica that never listens times out", func(t *testing.T) {
		t.Parallel()
		s := spec("-no-listen")
		s.Ready = 500 * time.Millisecond
		_, err := process.Start(ctx(t), s, "")
		if err == nil || !strings.Contains(err.Error(), "did not accept connections") || !strings.Contains(err.Error(), "process.ready_timeout") {
			t.Fatalf("Start = %v, want a timeout that names process.ready_timeout", err)
		}
		assertPIDsDead(t, err.Error(), `pid (\d+) not listening`)
	})

	t.Run("cancelling ctx abandons the start", func(t *testing.T) {
		t.Parallel()
		c, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		began := time.Now()
		_, err := process.Start(c, spec("-no-listen"), "")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 10*time.Second {
			t.Fatalf("Start = %v after %v, want the context's error promptly", err, time.Since(began))
		}
	})

	t.Run("ready_path waits for a 2xx", func(t *testing.T) {
		t.Parallel()
		const after = 600 * time.Millisecond
		s := spec("-ready-after", after.String())
		s.ReadyPath = "/healthz"
		began := time.Now()
		p := start(t, s, "")
		if took := time.Since(began); took < after {
			t.Errorf("ready after %v, before /healthz answered 2xx (%v)", took, after)
		}
		get(t, p.Addrs()[0])
	})

	t.Run("a port taken before the replica binds it is replaced", func(t *testing.T) {
		t.Parallel()
		held, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		tests := []struct {
			name      string
			busyTimes int
			wantErr   bool
			starts    int
		}{
			{"taken once", 1, false, 2},
			{"taken every time", 100, true, 4},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				log := filepath.Join(t.TempDir(), "starts")
				s := spec("-starts", log, "-busy-addr", held.Addr().String(), "-busy-times", strconv.Itoa(tt.busyTimes))
				p, err := process.Start(ctx(t), s, "")
				if p != nil {
					t.Cleanup(func() { p.Stop() })
				}
				b, _ := os.ReadFile(log)
				ports := strings.Fields(string(b))
				if len(ports) != tt.starts || len(slices.Compact(slices.Sorted(slices.Values(ports)))) != len(ports) {
					t.Errorf("started on ports %q, want %d different ones", ports, tt.starts)
				}
				if tt.wantErr {
					if err == nil || !strings.Contains(err.Error(), "address already in use") {
						t.Errorf("Start = %v, want the last bind error", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				if _, port, _ := net.SplitHostPort(p.Addrs()[0]); port != ports[len(ports)-1] {
					t.Errorf("Addrs %q, want the last port tried %s", p.Addrs(), ports[len(ports)-1])
				}
				if out := p.Output(0); !strings.Contains(out, "was taken by another process") {
					t.Errorf("Output = %q, want a note on the retry", out)
				}
			})
		}
	})

	t.Run("a port another process listens on is not taken for ready", func(t *testing.T) {
		t.Parallel()
		log := filepath.Join(t.TempDir(), "starts")
		p := start(t, spec("-starts", log, "-squat-times", "1"), "")
		b, _ := os.ReadFile(log)
		ports := strings.Fields(string(b))
		if _, port, _ := net.SplitHostPort(p.Addrs()[0]); len(ports) != 2 || port != ports[1] {
			t.Errorf("started on ports %q, now on %s; want a second start on another port", ports, port)
		}
		if got := get(t, p.Addrs()[0]); got.PID != p.PID(0) {
			t.Errorf("pid %d answered, want the replica's %d", got.PID, p.PID(0))
		}
		out := p.Output(0)
		if !strings.Contains(out, "squatter pid") || !strings.Contains(out, "was taken by another process") {
			t.Errorf("Output = %q, want the squatter and a note on the retry", out)
		}
		assertPIDsDead(t, out, `squatter pid (\d+)`)
	})

	t.Run("bad specs", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name string
			spec process.Spec
			want []string
		}{
			{"no command", process.Spec{}, []string{"process.command", "empty"}},
			{"binary not on PATH", process.Spec{Command: []string{"idemstress-no-such-server", "-x"}},
				[]string{"idemstress-no-such-server", "executable file not found", "process.command[0]"}},
			{"binary path missing", process.Spec{Command: []string{"/nonexistent/idemstress-server"}},
				[]string{"/nonexistent/idemstress-server", "no such file", "process.command[0]"}},
			{"negative replicas", process.Spec{Command: []string{bin}, Replicas: -1}, []string{"process.replicas", "-1"}},
			{"env without =", process.Spec{Command: []string{bin}, Env: []string{"A=1", "NOEQUALS"}}, []string{"process.env[1]", "NOEQUALS", "KEY=VALUE"}},
			{"ready_path not a path", process.Spec{Command: []string{bin}, ReadyPath: "healthz"}, []string{"process.ready_path", "/healthz"}},
			{"dir missing", process.Spec{Command: []string{bin}, Dir: "/nonexistent/dir"}, []string{"process.dir", "/nonexistent/dir"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p, err := process.Start(ctx(t), tt.spec, "")
				if err == nil {
					p.Stop()
					t.Fatalf("Start(%+v) succeeded", tt.spec)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
			})
		}
	})

	t.Run("out-of-range replica", func(t *testing.T) {
		t.Parallel()
		p := start(t, spec(), "")
		if err := p.Kill(1); err == nil || !strings.Contains(err.Error(), "replica 1 does not exist") {
			t.Errorf("Kill(1) of one replica: %v", err)
		}
		if p.Alive(-1) || p.PID(5) != 0 || p.Output(5) != "" {
			t.Error("accessors answer for a replica that does not exist")
		}
	})
}

// start starts processes and stops them when the test ends.
func start(t *testing.T, spec process.Spec, databaseURL string) *process.Service {
	t.Helper()
	p, err := process.Start(ctx(t), spec, databaseURL)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return p
}

// ctx is a context that bounds one step of a test.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// fetch asks echoserver at addr, on a connection of its own.
func fetch(addr string, timeout time.Duration) (echo, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: timeout}
	defer client.CloseIdleConnections()
	resp, err := client.Get("http://" + addr + "/")
	if err != nil {
		return echo{}, err
	}
	defer resp.Body.Close()
	var e echo
	err = json.NewDecoder(resp.Body).Decode(&e)
	return e, err
}

func get(t *testing.T, addr string) echo {
	t.Helper()
	e, err := fetch(addr, 5*time.Second)
	if err != nil {
		t.Fatalf("GET %s: %v", addr, err)
	}
	return e
}

// dead reports whether pid is gone or a zombie: orphans are never reaped
// where PID 1 is not an init, and a zombie holds nothing.
func dead(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	state := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))[0]
	return state == "Z" || state == "X"
}

// groupMembers are the processes of group pgid that are not dead.
func groupMembers(pgid int) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && !dead(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertPIDsDead checks that every pid the pattern finds in s is dead.
func assertPIDsDead(t *testing.T, s, pattern string) {
	t.Helper()
	ms := regexp.MustCompile(pattern).FindAllStringSubmatch(s, -1)
	if len(ms) == 0 {
		t.Fatalf("%q names no pid matching %s", s, pattern)
	}
	for _, m := range ms {
		if pid, _ := strconv.Atoi(m[1]); !dead(pid) {
			t.Errorf("pid %d still runs", pid)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
