package respproxy_test

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemstress/idemstress/internal/respproxy"
)

// Every command reaches the server and every reply the client, in order,
// under both protocols: plain commands, a pipeline, a MULTI block, a
// RESP3 map, a null, an error reply of the server's own, and an inline
// command typed as into telnet.
func TestRelay(t *testing.T) {
	f := newFixture(t, nil)
	for _, protocol := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", protocol), func(t *testing.T) {
			ctx := ctxOf(t)
			c := f.client(t, protocol)
			key := fmt.Sprintf("relay-%d", protocol)
			if err := c.Set(ctx, key, "v", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if got, err := c.Get(ctx, key).Result(); err != nil || got != "v" {
				t.Fatalf("GET: %q, %v", got, err)
			}
			if err := c.Get(ctx, key+"-missing").Err(); err != redis.Nil {
				t.Errorf("GET of a missing key: %v, want redis.Nil", err)
			}
			if err := c.Incr(ctx, key).Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR") {
				t.Errorf("INCR of a string: %v, want the server's ERR", err)
			}
			cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
				for i := range 50 {
					p.RPush(ctx, key+"-list", i)
				}
				return nil
			})
			if err != nil || len(cmds) != 50 || cmds[49].(*redis.IntCmd).Val() != 50 {
				t.Fatalf("pipeline: %d replies, %v", len(cmds), err)
			}
			if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, key+"-hash", "a", "1", "b", "2")
				p.Expire(ctx, key+"-hash", time.Minute)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if got, err := c.HGetAll(ctx, key+"-hash").Result(); err != nil || got["a"] != "1" || got["b"] != "2" {
				t.Errorf("HGETALL (a map in RESP3): %v, %v", got, err)
			}
			if got, err := f.direct.Get(ctx, key).Result(); err != nil || got != "v" {
				t.Errorf("the server holds %q (%v), want v", got, err)
			}
		})
	}
	t.Run("inline", func(t *testing.T) {
		conn, err := net.Dial("tcp", f.proxy.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprint(conn, "\r\nPING\r\nECHO hello\r\n")
		r := bufio.NewReader(conn)
		for _, want := range []string{"+PONG\r\n", "$5\r\n", "hello\r\n"} {
			if got, err := r.ReadString('\n'); err != nil || got != want {
				t.Fatalf("read %q (%v), want %q", got, err, want)
			}
		}
	})
}

// A client of a server that is not there sees its connection closed.
func TestServerDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := ln.Addr().String()
	ln.Close()
	p, err := respproxy.Start(respproxy.Options{Server: gone})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
	defer c.Close()
	if err := c.Ping(ctxOf(t)).Err(); err == nil {
		t.Fatal("PING through a proxy to no server answered")
	}
}
