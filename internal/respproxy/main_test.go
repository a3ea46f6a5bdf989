package respproxy_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/respproxy"
	"github.com/idemstress/idemstress/internal/testbed/redistest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startRedis runs a redis-server without persistence on a free loopback
// port for the test, and returns its address.
func startRedis(t *testing.T) string {
	t.Helper()
	bin := redistest.Server(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", t.TempDir(), "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); ; {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		err := c.Ping(ctx).Err()
		c.Close()
		if err == nil {
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer on %s within 10s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fixture is a Redis, a proxy in front of it, and clients of both.
type fixture struct {
	proxy  *respproxy.Proxy
	direct *redis.Client // the server, not through the proxy
}

func newFixture(t *testing.T, at func(respproxy.Point) respproxy.Action) *fixture {
	t.Helper()
	server := startRedis(t)
	p, err := respproxy.Start(respproxy.Options{Server: server, At: at})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	direct := redis.NewClient(&redis.Options{Addr: server})
	t.Cleanup(func() { direct.Close() })
	return &fixture{proxy: p, direct: direct}
}

// client is a client of the proxy speaking protocol 2 or 3, that does
// not retry (a retry would hide what the proxy did).
func (f *fixture) client(t *testing.T, protocol int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: f.proxy.Addr(), Protocol: protocol, MaxRetries: -1, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxOf(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func steps(trace []respproxy.Step) []string {
	var s []string
	for _, st := range trace {
		s = append(s, st.String())
	}
	return s
}
