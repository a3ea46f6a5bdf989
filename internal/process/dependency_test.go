//go:build unix

package process_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/testbed/redistest"
)

// redisDep is a Redis dependency on {port} in {data_dir}: without
// persistence, or with an append-only file fsynced on every write.
func redisDep(bin string, durable bool) process.DependencySpec {
	argv := []string{bin, "--port", "{port}", "--bind", "127.0.0.1", "--dir", "{data_dir}", "--save", ""}
	if durable {
		argv = append(argv, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		argv = append(argv, "--appendonly", "no")
	}
	return process.DependencySpec{Name: "redis", Command: argv, URL: "redis://{addr}/0",
		Ready: process.ReadyCheck{Send: "PING\r\n", Expect: "+PONG"}, StopTimeout: 2 * time.Second}
}

// resp sends one inline Redis command on a fresh connection and returns
// the first line of its answer.
func resp(t *testing.T, addr, cmd string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatalf("redis at %s: %v", addr, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(conn, "%s\r\n", cmd)
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("redis %q: %v", cmd, err)
	}
	return strings.TrimSpace(line)
}

// A Redis dependency starts before the service, is handed to it by its
// placeholders, and comes back on the same port after a restart or a
// crash: empty without persistence, with its keys from the append-only
// file with it. Stop removes the data directory it made.
func TestRedisDependency(t *testing.T) {
	redis := redistest.Server(t)
	bin := echoBinary(t)
	for _, tc := range []struct {
		durable bool
		want    string // GET k after each fault
	}{{false, "$-1"}, {true, "$1"}} {
		t.Run(fmt.Sprintf("durable %v", tc.durable), func(t *testing.T) {
			spec := process.Spec{Command: []string{bin, "-listen", "127.0.0.1:{port}"}, StopTimeout: 2 * time.Second,
				Env: []string{"ECHO_EXTRA={dep.redis.url} {dep.redis.port}"}, Dependencies: []process.DependencySpec{redisDep(redis, tc.durable)},
				Log: filepath.Join(t.TempDir(), "service.log")}
			p, err := process.Start(ctx(t), spec, "")
			if err != nil {
				t.Fatal(err)
			}
			dep := p.Dependency("redis")
			if dep == nil || p.Dependency("memcached") != nil {
				t.Fatalf("Dependency(redis) = %v; want it, and none by another name", dep)
			}
			_, port, _ := net.SplitHostPort(dep.Addr())
			if got, want := get(t, p.Addrs()[0]).Extra, "redis://"+dep.Addr()+"/0 "+port; got != want {
				t.Errorf("the service got %q, want %q", got, want)
			}
			addr, dir := dep.Addr(), dep.DataDir()
			for _, fault := range []func() error{func() error { return dep.Restart(ctx(t)) }, func() error { return dep.Crash(ctx(t)) }} {
				if got := resp(t, addr, "SET k v"); got != "+OK" {
					t.Fatalf("SET: %q", got)
				}
				if err := fault(); err != nil {
					t.Fatal(err)
				}
				if dep.Addr() != addr {
					t.Errorf("address %s after the fault, want %s", dep.Addr(), addr)
				}
				if got := resp(t, addr, "GET k"); got != tc.want {
					t.Errorf("GET k after the fault: %q, want %q", got, tc.want)
				}
			}
			// A fault on it cut short by its context leaves it down; Up,
			// which begins every plan, starts it again on its port.
			cut, cancel := context.WithCancel(ctx(t))
			cancel()
			if err := dep.Restart(cut); err == nil {
				t.Fatalf("Restart with its context cancelled: nil, want the context's error")
			}
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
				t.Fatalf("redis still answers at %s after a restart cut short", addr)
			}
			if err := p.Up(ctx(t)); err != nil {
				t.Fatalf("Up: %v", err)
			}
			if got := resp(t, addr, "PING"); got != "+PONG" {
				t.Errorf("PING after Up: %q, want +PONG", got)
			}
			if err := p.Stop(); err != nil {
				t.Fatal(err)
			}
			// process.log holds what each of them wrote, after its name,
			// and idemstress's own lines about their restarts.
			log, err := os.ReadFile(spec.Log)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"listening on " + p.Addrs()[0], "replica 0: echoserver: ", "redis: ", "redis: --- idemstress: restart of replica 0", "redis: --- idemstress: crash of replica 0"} {
				if !strings.Contains(string(log), want) {
					t.Errorf("process.log has no %q:\n%s", want, log)
				}
			}
			if strings.Contains(string(log), "redis: replica 0: ") {
				t.Errorf("a dependency's lines named twice:\n%s", log)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("data directory %s left behind: %v", dir, err)
			}
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
				t.Errorf("redis still answers at %s after Stop", addr)
			}
		})
	}
}

// A spec whose placeholders name no declared dependency, or whose
// dependency cannot start, is refused before anything runs.
func TestDependencySpecRefused(t *testing.T) {
	for _, tc := range []struct {
		spec process.Spec
		want string
	}{
		{process.Spec{Command: []string{"svc"}, Env: []string{"R={dep.redis.url}"}}, `names dependency "redis"`},
		{process.Spec{Command: []string{"svc", "{dep.redis.host}"}, Dependencies: []process.DependencySpec{{Name: "redis", Command: []string{"r"}}}}, "want one of"},
		{process.Spec{Command: []string{"svc"}, Dependencies: []process.DependencySpec{{Name: "Redis!", Command: []string{"r"}}}}, "short lower-case name"},
		{process.Spec{Command: []string{"svc"}, Dependencies: []process.DependencySpec{{Name: "redis"}}}, "command: empty"},
		{process.Spec{Command: []string{"svc"}, Dependencies: []process.DependencySpec{{Name: "redis", Command: []string{"r"}}, {Name: "redis", Command: []string{"r"}}}}, "declared twice"},
		{process.Spec{Command: []string{"svc"}, Dependencies: []process.DependencySpec{{Name: "redis", Command: []string{"r"}, Ready: process.ReadyCheck{Expect: "+PONG"}}}}, "expect without send"},
	} {
		if err := tc.spec.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.spec, err, tc.want)
		}
	}
	ok := process.Spec{Command: []string{"svc", "{dep.redis.addr}"}, Dependencies: []process.DependencySpec{{Name: "redis", Command: []string{"r"}}}}
	if err := ok.Check(); err != nil {
		t.Errorf("a declared dependency's placeholder: %v", err)
	}
}

// echoBinary builds testdata/echoserver for one test.
func echoBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/echoserver: %v\n%s", err, out)
	}
	return bin
}

// With Spec.Front the service is handed the address Front gives for a
// dependency (a proxy in front of it), which is asked with the
// dependency's own; a Front that fails stops the start, naming it.
func TestDependencyFront(t *testing.T) {
	redis := redistest.Server(t)
	bin := echoBinary(t)
	var asked []string
	spec := process.Spec{Command: []string{bin, "-listen", "127.0.0.1:{port}"}, StopTimeout: 2 * time.Second,
		Env: []string{"ECHO_EXTRA={dep.redis.url} {dep.redis.addr} {dep.redis.port}"}, Dependencies: []process.DependencySpec{redisDep(redis, false)},
		Front: func(name, addr string) (string, error) {
			asked = append(asked, name+" "+addr)
			return "127.0.0.1:7", nil
		}}
	p, err := process.Start(ctx(t), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if got, want := get(t, p.Addrs()[0]).Extra, "redis://127.0.0.1:7/0 127.0.0.1:7 7"; got != want {
		t.Errorf("the service got %q, want %q", got, want)
	}
	if want := "redis " + p.Dependency("redis").Addr(); len(asked) != 1 || asked[0] != want {
		t.Errorf("Front asked %q, want %q", asked, want)
	}
	spec.Front = func(string, string) (string, error) { return "", fmt.Errorf("no port left") }
	if _, err := process.Start(ctx(t), spec, ""); err == nil || !strings.Contains(err.Error(), "dependency redis: the proxy in front of it: no port left") {
		t.Errorf("Start with a failing Front: %v", err)
	}
}
