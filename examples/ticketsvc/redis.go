package ticketsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/redis/go-redis/v9"
)

// keyRedis is the key store of the keys-in-redis modes, a common layout:
// idempotency keys in Redis, effects in PostgreSQL. The calls of an action
// are still serialised by the transaction's advisory lock; the key record
// is written to Redis inside that transaction, after the ticket and its
// notification and before the commit, and looked up there first.
//
// What it keeps across a Redis restart is Redis's business: keys-in-redis
// runs it without persistence, so a restarted Redis has forgotten every
// key and a retry of a completed action creates a second ticket (the
// schema has no unique constraint on an action to stop it: Redis is the
// only guard, as in the services this mode copies). keys-in-redis-durable
// runs it with an append-only file fsynced on every write, and a
// restarted or crashed Redis comes back with every key.
//
// The record is written before the commit so that a crash between the
// two leaves no committed ticket without its key; the reverse window (the
// record written, the commit cut off) would replay a ticket that never
// committed. idemstress's crash lands while the call waits on its last
// effect write, before both.
type keyRedis struct {
	client *redis.Client
}

// redisRecord is a key's record in Redis.
type redisRecord struct {
	// State is "pending" or "done" in keys-in-redis-reserved; the other
	// modes write only done records, without it.
	State       string `json:"state,omitempty"`
	Fingerprint string `json:"fingerprint"`
	TicketID    int64  `json:"ticket_id"`
}

// newKeyRedis connects to the Redis at rawURL (redis://host:port/db);
// the connection is made on the first command.
func newKeyRedis(rawURL string) (*keyRedis, error) {
	if rawURL == "" {
		return nil, errors.New("ticketsvc: the keys-in-redis modes need a Redis: pass Options.RedisURL (-redis-url)")
	}
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("ticketsvc: Redis URL %q: %w", redact(rawURL), err)
	}
	return &keyRedis{client: redis.NewClient(opts)}, nil
}

// redisKey is the Redis key of an action's record.
func redisKey(a action) string { return "idem:" + a.tenant + "\x00" + a.key }

func (r *keyRedis) find(ctx context.Context, a action) (storedKey, bool, error) {
	b, err := r.client.Get(ctx, redisKey(a)).Bytes()
	if errors.Is(err, redis.Nil) {
		return storedKey{}, false, nil
	}
	if err != nil {
		return storedKey{}, false, fmt.Errorf("redis: GET: %w", err)
	}
	var rec redisRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return storedKey{}, false, fmt.Errorf("redis: the record of a key is not JSON: %w", err)
	}
	return storedKey{fingerprint: rec.Fingerprint, ticketID: rec.TicketID}, true, nil
}

func (r *keyRedis) store(ctx context.Context, a action, k storedKey) error {
	b, _ := json.Marshal(redisRecord{Fingerprint: k.fingerprint, TicketID: k.ticketID}) // plain data: it always encodes
	if err := r.client.Set(ctx, redisKey(a), b, 0).Err(); err != nil {
		return fmt.Errorf("redis: SET: %w", err)
	}
	return nil
}

func (r *keyRedis) close() error { return r.client.Close() }

// redact hides a URL's password in messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}
