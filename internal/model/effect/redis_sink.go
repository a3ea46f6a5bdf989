package effect

import (
	"fmt"
	"strings"
)

// RedisSink makes a sink the messages the service publishes to a Redis
// instead of requests it sends: a stream (XADD) or a list (LPUSH or
// RPUSH) in a Redis that idemstress starts as a dependency of the service
// (process.dependencies). idemstress reads it from the Redis itself, never
// consuming it: each entry or element is a delivery, judged as a
// webhook's is. A stream entry reads as a JSON object of its fields (the
// field request_key is /request_key), or, with Field, as the JSON held in
// that one field; a list element is its JSON.
type RedisSink struct {
	// Dependency names the Redis: a process.dependencies entry.
	Dependency string `yaml:"dependency" json:"dependency"`
	// Stream and List name the key the service publishes to; give one.
	Stream string `yaml:"stream" json:"stream,omitempty"`
	List   string `yaml:"list" json:"list,omitempty"`
	// Field, for a stream, is the entry's field holding the message as
	// JSON; "" reads the entry's fields as the message.
	Field string `yaml:"field" json:"field,omitempty"`
	// DB is the Redis database number (default 0).
	DB int `yaml:"db" json:"db,omitempty"`
}

// Key is the Redis key the messages are read from.
func (r RedisSink) Key() string { return r.Stream + r.List }

// Kind is "stream" or "list".
func (r RedisSink) Kind() string {
	if r.Stream != "" {
		return "stream"
	}
	return "list"
}

// validateRedis checks a Redis sink's declaration: what it reads, and
// none of what only an HTTP receiver does.
func (s Sink) validateRedis(at string) error {
	r := s.Redis
	switch {
	case r.Dependency == "":
		return fmt.Errorf("%s.redis.dependency (%s): missing; name the process.dependencies entry of the Redis the service publishes to", at, s.Name)
	case (r.Stream == "") == (r.List == ""):
		return fmt.Errorf("%s.redis (%s): give exactly one of stream or list, the key the service publishes its messages to", at, s.Name)
	case r.Field != "" && r.List != "":
		return fmt.Errorf("%s.redis.field (%s): only a stream entry has fields; a list element is read as JSON whole", at, s.Name)
	case strings.HasPrefix(r.Field, "/"):
		return fmt.Errorf("%s.redis.field (%s): %q; want the stream entry's field name (data), not a JSON pointer", at, s.Name, r.Field)
	case r.DB < 0:
		return fmt.Errorf("%s.redis.db (%s): %d; want a Redis database number (0, the default, or more)", at, s.Name, r.DB)
	case s.Addr != "":
		return fmt.Errorf("%s.addr (%s): a Redis sink listens on nothing; idemstress reads %s %s from dependency %s", at, s.Name, r.Kind(), r.Key(), r.Dependency)
	case len(s.Faults) > 0 || s.Slow != 0:
		return fmt.Errorf("%s.faults (%s): a Redis sink refuses nothing; fault the Redis itself with dep-restart or dep-crash in faults:", at, s.Name)
	}
	return nil
}
