package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// The messages of a Redis sink (model.RedisSink): what the service
// published to a stream or a list of a Redis that idemstress started for
// it, read from that Redis itself (not through anything idemstress puts
// in front of it), without consuming it. Only what was published after
// the reader opened is a delivery: a Redis that kept its data from an
// earlier run holds messages of no plan of this one.

// readBatch is how many stream entries one XRANGE reads.
const readBatch = 1000

// maxList bounds a list sink: each read reads it whole.
const maxList = 100_000

// Reader reads one Redis sink, until Close.
type Reader struct {
	spec   effect.Sink
	client *redis.Client
	log

	// rmu makes one read at a time, from where the last one ended.
	rmu sync.Mutex
	// last is the ID of the last stream entry read; seen counts the list
	// elements read, by their bytes (an element pushed again is new).
	last string
	seen map[string]int
}

// OpenRedis connects to the Redis at addr (host:port) for sink spec and
// notes where its stream or list stands: what it holds already is not
// the run's.
func OpenRedis(ctx context.Context, spec effect.Sink, addr string) (*Reader, error) {
	r := &Reader{spec: spec, client: redis.NewClient(&redis.Options{Addr: addr, DB: spec.Redis.DB}), seen: map[string]int{}}
	if err := r.start(ctx); err != nil {
		_ = r.client.Close()
		return nil, err
	}
	return r, nil
}

func (r *Reader) start(ctx context.Context) error {
	rs := r.spec.Redis
	if rs.Stream != "" {
		r.last = "0-0"
		last, err := r.client.XRevRangeN(ctx, rs.Stream, "+", "-", 1).Result()
		if err != nil {
			return r.failed(err)
		}
		if len(last) > 0 {
			r.last = last[0].ID
		}
		return nil
	}
	elems, err := r.list(ctx)
	for _, e := range elems {
		r.seen[e]++
	}
	return err
}

// failed says which read of which Redis failed.
func (r *Reader) failed(err error) error {
	rs := r.spec.Redis
	return fmt.Errorf("sink %s: reading %s %q in Redis %s (dependency %s): %w", r.spec.Name, rs.Kind(), rs.Key(), r.client.Options().Addr, rs.Dependency, err)
}

// Close closes the connections to the Redis.
func (r *Reader) Close() error { return r.client.Close() }

// Read reads what was published since the last read and keeps each
// message as a delivery for Take and Peek.
func (r *Reader) Read(ctx context.Context) error {
	r.rmu.Lock()
	defer r.rmu.Unlock()
	if r.spec.Redis.Stream != "" {
		return r.readStream(ctx)
	}
	return r.readList(ctx)
}

// readStream reads the stream's entries after the last read, each a
// delivery at the time its ID says it was added.
func (r *Reader) readStream(ctx context.Context) error {
	rs := r.spec.Redis
	for {
		// From the last entry read, which comes back first (an exclusive
		// start needs Redis 6.2).
		got, err := r.client.XRangeN(ctx, rs.Stream, r.last, "+", readBatch+1).Result()
		if err != nil {
			return r.failed(err)
		}
		if len(got) > 0 && got[0].ID == r.last {
			got = got[1:]
		}
		for _, m := range got {
			r.add(entryTime(m.ID), model.Delivery{Sink: r.spec.Name, Method: "XADD", Header: map[string][]string{"Entry-Id": {m.ID}},
				Body: entryBody(m.Values, rs.Field), Accepted: true})
			r.last = m.ID
		}
		if len(got) < readBatch {
			return nil
		}
	}
}

// entryTime is when a stream entry was added: its ID's milliseconds
// (Redis's clock, this machine's), or now for an ID set by hand.
func entryTime(id string) time.Time {
	ms, _, _ := strings.Cut(id, "-")
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || n < 1e12 {
		return time.Now()
	}
	return time.UnixMilli(n)
}

// entryBody is a stream entry as a message: the JSON in its field field,
// or all its fields as a JSON object of strings.
func entryBody(values map[string]any, field string) model.Body {
	if field != "" {
		v, _ := values[field].(string)
		return model.Body(v)
	}
	b, err := json.Marshal(values) // strings only: it always encodes
	if err != nil {
		return nil
	}
	return b
}

// readList reads the whole list and keeps each element beyond those
// already read as a delivery, at the time it was read: a list's
// elements carry none of their own.
func (r *Reader) readList(ctx context.Context) error {
	elems, err := r.list(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	count := map[string]int{}
	for _, e := range elems {
		count[e]++
		if count[e] > r.seen[e] {
			r.seen[e] = count[e]
			r.add(now, model.Delivery{Sink: r.spec.Name, Method: "PUSH", Body: model.Body(e), Accepted: true})
		}
	}
	return nil
}

// list is the list sink's elements.
func (r *Reader) list(ctx context.Context) ([]string, error) {
	key := r.spec.Redis.List
	n, err := r.client.LLen(ctx, key).Result()
	if err != nil {
		return nil, r.failed(err)
	}
	if n > maxList {
		return nil, r.failed(fmt.Errorf("%d elements, more than %d; a list is read whole at every look: empty it before the run, or publish to a stream", n, maxList))
	}
	elems, err := r.client.LRange(ctx, key, 0, -1).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, r.failed(err)
	}
	return elems, nil
}
