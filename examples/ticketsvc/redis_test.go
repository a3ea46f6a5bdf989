package ticketsvc_test

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

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/redistest"
)

// startRedis runs a redis-server without persistence on a unix socket of
// the test's own, and returns its socket.
func startRedis(t *testing.T) string {
	t.Helper()
	bin := redistest.Server(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--port", "0", "--unixsocket", sock, "--dir", dir, "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := os.Stat(sock); err == nil && redisDo(t, sock, "PING") == "+PONG" {
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer on %s within 10s", sock)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// redisDo sends one inline command and returns the first line of its answer.
func redisDo(t *testing.T, sock, cmd string) string {
	conn, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return ""
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(conn, "%s\r\n", cmd)
	line, _ := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimSpace(line)
}

// keys-in-redis looks keys up in Redis: a retry replays while Redis holds
// the key, and once Redis has lost it (FLUSHALL, as a restart without
// persistence does) the same call creates a second ticket, which the
// schema, without unique constraints, lets through. Without a Redis the
// mode is refused.
func TestKeysInRedis(t *testing.T) {
	sock := startRedis(t)
	for _, mode := range ticketsvc.RedisModes() {
		t.Run(mode, func(t *testing.T) {
			redisDo(t, sock, "FLUSHALL")
			e := newEnvWith(t, ticketsvc.Options{Layout: ticketsvc.LayoutKeys, Bug: mode, RedisURL: "unix://" + sock})
			first := e.mustPost("A", "k1", `{"subject":"x"}`)
			again := e.mustPost("A", "k1", `{"subject":"x"}`)
			if first.status != 201 || again.status != 200 || again.id != first.id {
				t.Fatalf("answers %d id %d, %d id %d; want 201 and a 200 replay of it", first.status, first.id, again.status, again.id)
			}
			if changed := e.mustPost("A", "k1", `{"subject":"y"}`); changed.status != 422 {
				t.Errorf("a changed payload under the key: %d, want 422", changed.status)
			}
			if n := len(e.effectsOf("A", "k1").Tickets); n != 1 {
				t.Fatalf("%d tickets while Redis holds the key, want 1", n)
			}
			if got := redisDo(t, sock, "FLUSHALL"); got != "+OK" {
				t.Fatalf("FLUSHALL: %q", got)
			}
			lost := e.mustPost("A", "k1", `{"subject":"x"}`)
			if mode == "keys-in-redis-reserved" {
				// PostgreSQL decides: a record lost costs a trip there.
				if lost.status != 200 || lost.id != first.id {
					t.Errorf("after Redis lost the key: %d id %d, want a 200 replay of %d", lost.status, lost.id, first.id)
				}
				return
			}
			if lost.status != 201 || lost.id == first.id {
				t.Errorf("after Redis lost the key: %d id %d, want a second 201", lost.status, lost.id)
			}
			if n := len(e.effectsOf("A", "k1").Tickets); n != 2 {
				t.Errorf("%d tickets after Redis lost the key, want 2 (Redis is the only guard)", n)
			}
		})
	}
	if _, err := ticketsvc.New(newPool(t, ticketsvc.LayoutKeys, ticketsvc.ForBug("keys-in-redis")), ticketsvc.Options{Bug: "keys-in-redis"}); err == nil ||
		!strings.Contains(err.Error(), "RedisURL") {
		t.Errorf("keys-in-redis without a Redis: %v, want a refusal naming Options.RedisURL", err)
	}
}

// keys-in-redis-reserved resolves every record a crash can leave: a
// pending one whose work never committed is taken over (one ticket), a
// pending one whose work committed is replayed and completed, and a done
// one is replayed from Redis.
func TestKeysInRedisReservedResolves(t *testing.T) {
	sock := startRedis(t)
	e := newEnvWith(t, ticketsvc.Options{Layout: ticketsvc.LayoutKeys, Bug: "keys-in-redis-reserved", RedisURL: "unix://" + sock})
	// Crashed after its reservation, before its commit.
	redisDo(t, sock, `SET "idem:A\x00k1" "{\"state\":\"pending\",\"fingerprint\":\"f\"}"`)
	first := e.mustPost("A", "k1", `{"subject":"x"}`)
	if first.status != 201 {
		t.Fatalf("over a pending record whose work never committed: %d, want 201", first.status)
	}
	if got := redisDo(t, sock, `GET "idem:A\x00k1"`); got == "$-1" || !strings.HasPrefix(got, "$") {
		t.Fatalf("GET the record the service completed: %q", got)
	}
	// Crashed after its commit, before the record was completed.
	redisDo(t, sock, `SET "idem:A\x00k1" "{\"state\":\"pending\",\"fingerprint\":\"f\"}"`)
	if again := e.mustPost("A", "k1", `{"subject":"x"}`); again.status != 200 || again.id != first.id {
		t.Errorf("over a pending record whose work committed: %d id %d, want a 200 replay of %d", again.status, again.id, first.id)
	}
	if got := redisDo(t, sock, `STRLEN "idem:A\x00k1"`); got == ":37" {
		t.Errorf("the pending record was not completed after the replay")
	}
	if changed := e.mustPost("A", "k1", `{"subject":"y"}`); changed.status != 422 {
		t.Errorf("a changed payload under the key: %d, want 422", changed.status)
	}
	if n := len(e.effectsOf("A", "k1").Tickets); n != 1 {
		t.Errorf("%d tickets, want 1", n)
	}
}
