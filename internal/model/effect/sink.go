package effect

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
	"github.com/idemstress/idemstress/internal/model/payloads"
)

// Sink declares an effect beyond the database: an HTTP receiver that
// idemstress runs on 127.0.0.1 for the run, whose URL the service is
// handed as {sink.NAME.url}. Every request it receives is a delivery, an
// effect of the action its body names, counted per action like a table's
// rows and compared with the winning payload like a table's fields.
type Sink struct {
	Name string `yaml:"name" json:"name"`
	// Addr is a loopback address to listen on (127.0.0.1:PORT), for a
	// service idemstress does not start and must be told the URL before
	// the run; "" is a free port.
	Addr string `yaml:"addr" json:"addr,omitempty"`
	// Tag is a JSON pointer into a delivery's body to a value holding
	// the action tag; Key and Tenant point at the idempotency key and
	// the tenant as they were sent. One of Tag or Key attributes a
	// delivery to its action.
	Tag    string `yaml:"tag" json:"tag,omitempty"`
	Key    string `yaml:"key" json:"key,omitempty"`
	Tenant string `yaml:"tenant" json:"tenant,omitempty"`
	// ID points at the resource ID a delivery announces: it must be the
	// ID of a row the action committed (in the first effect table with an
	// id), or the event announces a resource that never was.
	ID string `yaml:"id" json:"id,omitempty"`
	// PerAction is how many events one action sends here (default 1).
	PerAction int `yaml:"per_action" json:"per_action,omitempty"`
	// Fields maps a JSON pointer into a delivery's body to a JSON pointer
	// into the winning payload.
	Fields map[string]string `yaml:"fields" json:"fields,omitempty"`
	// Delivery is the semantics the service promises (default exactly-once).
	Delivery DeliveryMode `yaml:"delivery" json:"delivery,omitempty"`
	// EventID points at the event's ID in a delivery's body: under
	// at-least-once, deliveries of one event carry the same one.
	EventID string `yaml:"event_id" json:"event_id,omitempty"`
	// DeliveryWithin bounds how long after a plan's last call its events
	// may arrive (default DefaultDeliveryWithin): a committed action
	// whose event has not arrived by then lost it.
	DeliveryWithin time.Duration `yaml:"delivery_within" json:"delivery_within,omitempty"`
	// Faults are what the sink does to the attempts of each event in
	// turn, the first attempt getting the first; the attempts after
	// the last are accepted. They make the service retry its deliveries.
	Faults []model.SinkFault `yaml:"faults" json:"faults,omitempty"`
	// Slow is how long a slow answer waits (default DefaultSinkSlow).
	Slow time.Duration `yaml:"slow" json:"slow,omitempty"`
	// Quiet is how long the sink must receive nothing more, once every
	// committed action's events are in, before a plan is judged (default
	// DefaultSinkQuiet): a duplicate sent later than that after the last
	// delivery is not seen. A service whose retries and relay run fast
	// may declare less, a few times its relay's interval.
	Quiet time.Duration `yaml:"quiet" json:"quiet,omitempty"`
	// Redis, when set, makes the sink a stream or list the service
	// publishes to in a Redis dependency, read there, instead of an HTTP
	// receiver (redis_sink.go).
	Redis *RedisSink `yaml:"redis" json:"redis,omitempty"`
}

// DeliveryMode is a sink's promised delivery semantics.
type DeliveryMode string

const (
	// ExactlyOnce: every event is accepted once; an attempt the sink
	// refused may be retried.
	ExactlyOnce DeliveryMode = "exactly-once"
	// AtLeastOnce: an event may arrive several times, each with the same
	// event ID (event_id:), as Stripe delivers webhooks.
	AtLeastOnce DeliveryMode = "at-least-once"
)

// DefaultDeliveryWithin is how long a plan's events may take to arrive
// when a sink declares no delivery_within.
const DefaultDeliveryWithin = 15 * time.Second

// DefaultSinkQuiet is how long a plan's deliveries must stay unchanged by
// default before the plan is judged.
const DefaultSinkQuiet = 200 * time.Millisecond

// QuietFor is how long a plan's deliveries must stay unchanged.
func (s Sink) QuietFor() time.Duration {
	if s.Quiet == 0 {
		return DefaultSinkQuiet
	}
	return s.Quiet
}

// DefaultSinkSlow is how long a slow answer waits by default.
const DefaultSinkSlow = 3 * time.Second

// maxDeliveryWithin bounds delivery_within: every plan may wait it out.
const maxDeliveryWithin = 5 * time.Minute

// EventsPerAction is how many events one action sends to the sink.
func (s Sink) EventsPerAction() int { return max(s.PerAction, 1) }

// Within is how long a plan's events may take to arrive.
func (s Sink) Within() time.Duration {
	if s.DeliveryWithin == 0 {
		return DefaultDeliveryWithin
	}
	return s.DeliveryWithin
}

// SlowFor is how long a slow answer of the sink waits.
func (s Sink) SlowFor() time.Duration {
	if s.Slow == 0 {
		return DefaultSinkSlow
	}
	return s.Slow
}

// Mode is the sink's delivery semantics, exactly-once unless declared.
func (s Sink) Mode() DeliveryMode {
	if s.Delivery == "" {
		return ExactlyOnce
	}
	return s.Delivery
}

// Placeholder is what the service's command line and environment name the
// sink's URL by.
func (s Sink) Placeholder() string { return "{sink." + s.Name + ".url}" }

// ValidateSinks checks the sinks' declarations among themselves.
func ValidateSinks(sinks []Sink) error {
	seen := map[string]bool{}
	for i, s := range sinks {
		at := fmt.Sprintf("sinks[%d]", i)
		switch {
		case s.Name == "" || strings.ContainsAny(s.Name, ".{} \t"):
			return fmt.Errorf("%s.name: %q; want a word such as webhooks (the service is handed {sink.NAME.url})", at, s.Name)
		case seen[s.Name]:
			return fmt.Errorf("%s.name: %q declared twice", at, s.Name)
		}
		if err := s.validate(at); err != nil {
			return err
		}
		seen[s.Name] = true
	}
	return nil
}

// validate checks one sink's declaration by itself (at is where it sits,
// as "sinks[1]"): how a delivery names its action, the bounds on counts
// and durations, the delivery mode, the faults, and where it listens.
func (s Sink) validate(at string) error {
	switch {
	case (s.Tag == "") == (s.Key == ""):
		return fmt.Errorf("%s (%s): give exactly one of tag or key (with tenant), JSON pointers into a delivery's body that name its action", at, s.Name)
	case s.PerAction < 0 || s.PerAction > maxPerAction:
		return fmt.Errorf("%s.per_action: %d; want 1 to %d (the events one action sends to %s)", at, s.PerAction, maxPerAction, s.Name)
	case s.DeliveryWithin < 0 || s.DeliveryWithin > maxDeliveryWithin:
		return fmt.Errorf("%s.delivery_within: %s; want a positive duration up to %s, such as 5s", at, s.DeliveryWithin, maxDeliveryWithin)
	case s.Slow < 0 || s.Slow > maxDeliveryWithin:
		return fmt.Errorf("%s.slow: %s; want a positive duration up to %s, such as 3s", at, s.Slow, maxDeliveryWithin)
	case s.Quiet < 0 || s.Quiet > s.Within():
		return fmt.Errorf("%s.quiet: %s; want a positive duration up to delivery_within (%s), such as 200ms", at, s.Quiet, s.Within())
	}
	switch s.Mode() {
	case ExactlyOnce:
		if s.EventID != "" {
			return fmt.Errorf("%s.event_id (%s): only at-least-once deliveries are told apart by an event ID; set delivery: at-least-once or remove event_id", at, s.Name)
		}
	case AtLeastOnce:
		if s.EventID == "" {
			return fmt.Errorf("%s.event_id (%s): missing; at-least-once needs a JSON pointer to the event's ID in a delivery's body (e.g. /id), by which duplicates are told from new events", at, s.Name)
		}
	default:
		return fmt.Errorf("%s.delivery: %q; want %q or %q", at, s.Delivery, ExactlyOnce, AtLeastOnce)
	}
	if err := s.validatePointers(at); err != nil {
		return err
	}
	for _, f := range s.Faults {
		if f != model.Sink500 && f != model.SinkSlow && f != model.SinkDrop {
			return fmt.Errorf("%s.faults: %q; want 500, slow or drop", at, f)
		}
	}
	if s.Redis != nil {
		if err := s.validateRedis(at); err != nil {
			return err
		}
	}
	if s.Addr != "" {
		host, _, err := net.SplitHostPort(s.Addr)
		if err != nil || !net.ParseIP(host).IsLoopback() {
			return fmt.Errorf("%s.addr: %q; want a loopback address such as 127.0.0.1:9090 (or none, for a free port)", at, s.Addr)
		}
	}
	return nil
}

// validatePointers checks that every place in a delivery's body the sink
// names, and each side of its fields, is a JSON pointer: a bare name
// would silently match nothing.
func (s Sink) validatePointers(at string) error {
	for field, ptr := range map[string]string{"tag": s.Tag, "key": s.Key, "tenant": s.Tenant, "id": s.ID, "event_id": s.EventID} {
		if ptr != "" && !strings.HasPrefix(ptr, "/") {
			return fmt.Errorf("%s.%s: %q is not a JSON pointer (want e.g. /data/key)", at, field, ptr)
		}
	}
	for body, ptr := range s.Fields {
		if !strings.HasPrefix(body, "/") || !strings.HasPrefix(ptr, "/") {
			return fmt.Errorf("%s.fields: %q: %q; both sides are JSON pointers (the delivery's field: the payload's, e.g. /subject: /subject)", at, body, ptr)
		}
	}
	return nil
}

// DeliveryOf finds the action a delivery to sink s belongs to in
// namespace ns, by its tag or its key and tenant; ok is false when its
// body names no action of the namespace.
func DeliveryOf(c model.Contract, ns model.Namespace, s Sink, body []byte) (model.Action, bool) {
	if s.Tag != "" {
		v, ok := payloads.Pointer(body, s.Tag)
		if !ok {
			return model.Action{}, false
		}
		tenant, key, ok := identifiers.ParseTag(c, ns, v)
		if !ok || key == "" {
			return model.Action{}, false
		}
		return c.ActionOf(model.Call{Tenant: tenant, Key: key}), true
	}
	sentKey, ok := payloads.Pointer(body, s.Key)
	if !ok {
		return model.Action{}, false
	}
	key, ok := identifiers.LogicalKey(c, ns, sentKey)
	if !ok {
		return model.Action{}, false
	}
	var tenant string
	if s.Tenant != "" {
		sentTenant, _ := payloads.Pointer(body, s.Tenant)
		if tenant, ok = identifiers.LogicalTenant(c, ns, sentTenant); !ok && c.KeyScope != model.KeyScopeGlobal {
			return model.Action{}, false
		}
	}
	return c.ActionOf(model.Call{Tenant: tenant, Key: key}), true
}
