package respproxy_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemstress/idemstress/internal/respproxy"
)

// A command is the call's when an argument carries its marker: the
// trace holds its points, each command counted among the call's commands
// of its name, and no other command's; a MULTI block with a marked
// command is one point, its EXEC.
func TestTieTrace(t *testing.T) {
	for _, protocol := range []int{2, 3} {
		f := newFixture(t, nil)
		ctx := ctxOf(t)
		c := f.client(t, protocol)
		call := f.proxy.Tie("A/k1", []byte("k1"), nil)
		c.Get(ctx, "idem:A\x00k1")
		c.Set(ctx, "unrelated", "v", 0)
		c.SetNX(ctx, "idem:A\x00k1", "pending", 0)
		c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "idem:A\x00k1", "done", 0)
			p.Incr(ctx, "counter")
			return nil
		})
		c.Set(ctx, "other", "k1 in a value", 0)
		call.Untie()
		c.Get(ctx, "idem:A\x00k1")
		want := []string{
			"before GET 1", "after GET 1",
			"before SETNX 1", "after SETNX 1", // named as sent
			"before EXEC 1", "after EXEC 1",
			"before SET 1", "after SET 1",
		}
		got := steps(call.Trace())
		if !slices.Equal(got, want) {
			t.Errorf("RESP%d trace:\n%s\nwant:\n%s", protocol, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// Hold at a point keeps the command there: before it nothing has reached
// the server, after it the server has run it and the client waits; a
// client that dies while held (its process killed) ends the session, and
// what the server ran stays.
func TestHold(t *testing.T) {
	for _, tc := range []struct {
		kind    respproxy.Kind
		applied bool
	}{{respproxy.BeforeCommand, false}, {respproxy.AfterCommand, true}} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			reached, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			f := newFixture(t, func(pt respproxy.Point) respproxy.Action {
				if pt.Kind == tc.kind && pt.Command == "SET" {
					once.Do(func() { close(reached) })
					return respproxy.Hold(release)
				}
				return respproxy.Continue
			})
			ctx := ctxOf(t)
			f.proxy.Tie("A/k1", []byte("k1"))
			c := f.client(t, 3)
			done := make(chan error, 1)
			go func() { done <- c.Set(ctx, "idem:k1", "v", 0).Err() }()
			select {
			case <-reached:
			case <-time.After(5 * time.Second):
				t.Fatal("the SET never reached its point")
			}
			for deadline := time.Now().Add(5 * time.Second); f.proxy.Held() != 1; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("Held() = %d, want 1", f.proxy.Held())
				}
			}
			c.Close() // the client's process dies while held
			if err := <-done; err == nil {
				t.Error("the held SET answered OK after its client closed")
			}
			err := f.direct.Get(ctx, "idem:k1").Err()
			if applied := err == nil; applied != tc.applied {
				t.Errorf("the server holds the key: %v (%v), want %v", applied, err, tc.applied)
			}
			close(release)
		})
	}
}

// An error before a command answers it in the server's place (the
// command is not run), in its order among a pipeline's replies; after a
// command, where only a lost connection can hide the reply, it is a cut;
// both are listed as delivered.
func TestErrorAndCut(t *testing.T) {
	f := newFixture(t, func(pt respproxy.Point) respproxy.Action {
		switch {
		case pt.Command == "SET" && pt.N == 1 && pt.Kind == respproxy.BeforeCommand:
			return respproxy.Error("READONLY")
		case pt.Command == "SET" && pt.N == 2 && pt.Kind == respproxy.AfterCommand:
			return respproxy.Cut
		}
		return respproxy.Continue
	})
	ctx := ctxOf(t)
	call := f.proxy.Tie("A/k1", []byte("k1"))
	c := f.client(t, 2)
	cmds, _ := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "before")
		p.Set(ctx, "idem:k1", "v", 0)
		p.Echo(ctx, "after")
		return nil
	})
	if err := cmds[1].Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY You can't write") {
		t.Errorf("the SET: %v, want READONLY", err)
	}
	if got := cmds[2].(*redis.StringCmd).Val(); got != "after" {
		t.Errorf("the ECHO after the refused SET got %q: replies out of order", got)
	}
	if err := f.direct.Get(ctx, "idem:k1").Err(); err != redis.Nil {
		t.Errorf("a refused SET reached the server: %v", err)
	}
	if err := c.Set(ctx, "idem:k1", "w", 0).Err(); err == nil {
		t.Error("a SET cut after it ran answered OK")
	}
	if got, err := f.direct.Get(ctx, "idem:k1").Result(); got != "w" {
		t.Errorf("the cut SET did not run: %q, %v", got, err)
	}
	inj := call.Injected()
	if len(inj) != 2 || inj[0].Kind != respproxy.BeforeCommand || !strings.HasPrefix(inj[0].Line, "READONLY") ||
		inj[1].Kind != respproxy.AfterCommand || inj[1].Line != "" || inj[1].N != 2 {
		t.Errorf("injected %+v", inj)
	}
}

// Error's codes: Redis's own texts, a word of capitals, and a panic on
// anything else.
func TestErrorCodes(t *testing.T) {
	for _, code := range append(respproxy.ErrorCodes(), "NOSCRIPT") {
		if got := respproxy.Error(code).String(); got != "error "+code {
			t.Errorf("Error(%q) = %s", code, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Error(\"bad code\") did not panic")
		}
	}()
	respproxy.Error("bad code")
}
