package ticketsvc

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// The event stream: with Options.EventsRedisURL set instead of a webhook
// URL, the service publishes each ticket it creates as an entry of a
// Redis stream (XADD), the services that publish instead of calling out.
// Everything else is the webhook's: the outbox relay publishes the rows
// that have not been published yet, an entry whose XADD failed (a Redis
// restarting) is published again under the same event ID, and the
// webhook bug modes make the same mistakes on the stream
// (webhook-on-replay publishes a replayed call's ticket again).

// DefaultEventsStream is the stream the events go to when
// Options.EventsStream names none.
const DefaultEventsStream = "tickets:events"

// newEventStream is a webhooks that publishes to stream in the Redis at
// rawURL (redis://host:port/db); the connection is made on the first
// XADD.
func newEventStream(rawURL, stream string) (*webhooks, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("ticketsvc: events Redis URL %q: %w", redact(rawURL), err)
	}
	h := newWebhooks("")
	h.stream, h.streamKey = redis.NewClient(opts), stream
	return h, nil
}

// publish adds one event to the stream, its fields the webhook's.
func (h *webhooks) publish(ctx context.Context, ev webhookEvent) error {
	err := h.stream.XAdd(ctx, &redis.XAddArgs{Stream: h.streamKey, Values: []any{
		"event_id", ev.EventID, "ticket_id", strconv.FormatInt(ev.TicketID, 10),
		"tenant", ev.Tenant, "request_key", ev.RequestKey, "subject", ev.Subject,
	}}).Err()
	if err != nil {
		return fmt.Errorf("event %s: XADD %s: %w", ev.EventID, h.streamKey, err)
	}
	return nil
}
