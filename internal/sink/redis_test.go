package sink_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/sink"
	"github.com/idemstress/idemstress/internal/testbed/redistest"
)

// startRedis starts a redis-server on a free loopback port for the test.
func startRedis(t *testing.T) (addr string, c *redis.Client) {
	t.Helper()
	bin := redistest.Server(t)
	svc, err := process.Start(t.Context(), process.Spec{Command: []string{bin, "--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop() })
	c = redis.NewClient(&redis.Options{Addr: svc.Addrs()[0]})
	t.Cleanup(func() { _ = c.Close() })
	return svc.Addrs()[0], c
}

// bodies are the bodies of deliveries, in order.
func bodies(ds []model.Delivery) []string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Body))
	}
	return out
}

func all([]byte) bool { return true }

// A stream sink's deliveries are the entries added after it opened, each
// read as a JSON object of its fields (or the JSON of one field), at the
// time its ID says, accepted; a list sink's are the elements pushed after
// it opened, at either end, an element pushed twice twice.
func TestRedisSinkReadsWhatWasPublishedSince(t *testing.T) {
	addr, c := startRedis(t)
	ctx := t.Context()
	xadd := func(stream string, values ...any) {
		if err := c.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: values}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	open := func(rs effect.RedisSink) *sink.Reader {
		r, err := sink.OpenRedis(ctx, effect.Sink{Name: "events", Key: "/key", Redis: &rs}, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		return r
	}
	read := func(r *sink.Reader, t0 time.Time) []model.Delivery {
		if err := r.Read(ctx); err != nil {
			t.Fatal(err)
		}
		return r.Take(t0, all)
	}

	t.Run("stream", func(t *testing.T) {
		xadd("s", "key", "before")
		r := open(effect.RedisSink{Dependency: "redis", Stream: "s"})
		t0 := time.Now()
		xadd("s", "key", "k1", "event_id", "e1")
		xadd("s", "key", "k1", "event_id", "e1")
		got := read(r, t0)
		if want := []string{`{"event_id":"e1","key":"k1"}`, `{"event_id":"e1","key":"k1"}`}; !slices.Equal(bodies(got), want) {
			t.Fatalf("bodies %q, want %q", bodies(got), want)
		}
		for _, d := range got {
			if d.Method != "XADD" || !d.Accepted || d.Sink != "events" || len(d.Header["Entry-Id"]) != 1 || time.Duration(d.Time) < -5*time.Millisecond || time.Duration(d.Time) > 5*time.Second {
				t.Errorf("delivery %+v: want an accepted XADD of events with its entry ID, at its ID's time", d)
			}
		}
		xadd("s", "key", "k2")
		if got := read(r, t0); !slices.Equal(bodies(got), []string{`{"key":"k2"}`}) {
			t.Errorf("second read %q, want only the entry added since", bodies(got))
		}
	})
	t.Run("stream field", func(t *testing.T) {
		r := open(effect.RedisSink{Dependency: "redis", Stream: "f", Field: "data"})
		xadd("f", "type", "ticket.created", "data", `{"key":"k1"}`)
		if got := read(r, time.Now()); !slices.Equal(bodies(got), []string{`{"key":"k1"}`}) {
			t.Errorf("bodies %q, want the JSON of field data", bodies(got))
		}
	})
	t.Run("list", func(t *testing.T) {
		if err := c.RPush(ctx, "l", `{"key":"before"}`).Err(); err != nil {
			t.Fatal(err)
		}
		r := open(effect.RedisSink{Dependency: "redis", List: "l"})
		c.RPush(ctx, "l", `{"key":"k1"}`)
		c.LPush(ctx, "l", `{"key":"k2"}`)
		got := read(r, time.Now())
		c.RPush(ctx, "l", `{"key":"k1"}`)
		got = append(got, read(r, time.Now())...)
		if want := []string{`{"key":"k2"}`, `{"key":"k1"}`, `{"key":"k1"}`}; !slices.Equal(bodies(got), want) {
			t.Errorf("bodies %q, want %q", bodies(got), want)
		}
	})
}

// A Redis sink whose key holds another type says which read failed.
func TestRedisSinkOfTheWrongTypeSaysSo(t *testing.T) {
	addr, c := startRedis(t)
	c.Set(t.Context(), "s", "a string", 0)
	_, err := sink.OpenRedis(context.Background(), effect.Sink{Name: "events", Key: "/key", Redis: &effect.RedisSink{Dependency: "redis", Stream: "s"}}, addr)
	if err == nil || !strings.Contains(err.Error(), `sink events: reading stream "s" in Redis `+addr+" (dependency redis): WRONGTYPE") {
		t.Errorf("error %v: want one naming the sink, the stream, the Redis and WRONGTYPE", err)
	}
}
