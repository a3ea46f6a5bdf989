package ticketsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// The webhook: with Options.WebhookURL set, the service announces each
// ticket it creates with a POST of a webhookEvent there. The correct
// design is a transactional outbox: the notification_outbox row commits
// with the ticket, and Relay, running beside the handler, delivers the
// rows that have not been delivered yet, retrying a refused delivery
// under the same event ID, and records each delivered row in
// webhook_relay. An event therefore leaves only after its commit, and
// none is lost with a process that crashed: at least once, deduplicated
// by event_id. The webhook bug modes each get one step of that wrong.

// webhookEvent is the body of a webhook delivery.
type webhookEvent struct {
	EventID    string `json:"event_id"`
	TicketID   int64  `json:"ticket_id"`
	Tenant     string `json:"tenant"`
	RequestKey string `json:"request_key"`
	Subject    string `json:"subject"`
}

// webhookModes are the bug modes of the webhook: they need
// Options.WebhookURL, and a contract that declares the sink (see
// ContractWebhook), to show.
var webhookModes = []bugMode{
	{name: "webhook-on-replay", b: behavior{webhookOnReplay: true}},
	{name: "new-event-id-on-retry", b: behavior{newEventIDOnRetry: true}},
	{name: "webhook-before-commit", b: behavior{webhookBeforeCommit: true}},
	{name: "webhook-lost-on-crash", b: behavior{webhookAfterAnswer: true}},
}

// WebhookAtCommit names the mode that sends its webhook from the request
// after all its writes, right before the COMMIT: webhook-before-commit's
// mistake where only a crash at that point shows it (crash-at before
// commit 1, through the PostgreSQL proxy); a crash at the last effect
// table's write (crash) comes before the webhook left, one after the
// commit (crash-after-commit) after the ticket committed. It is accepted
// by Options.Bug and ForBug but is none of WebhookBugs (the demo's rows).
const WebhookAtCommit = "webhook-at-commit"

var webhookAtCommitMode = bugMode{name: WebhookAtCommit, b: behavior{webhookAtCommit: true}}

// WebhookBugs returns the names of the webhook's bug modes, accepted by
// Options.Bug and ForBug.
func WebhookBugs() []string {
	names := make([]string, len(webhookModes))
	for i, m := range webhookModes {
		names[i] = m.name
	}
	return names
}

// relayPoll is how often Relay looks for undelivered outbox rows, and
// how long it waits before trying a refused delivery again.
const relayPoll = 20 * time.Millisecond

// deliveryTimeout bounds one delivery: a receiver slower than this is
// given up on, and the delivery tried again.
const deliveryTimeout = time.Second

// afterAnswer is how long webhook-lost-on-crash keeps an event in memory
// before sending it: a batch flushed ten times a second, so that a
// crash or a restart right after the answer takes it along.
const afterAnswer = 100 * time.Millisecond

// relayTable records the outbox rows Relay has delivered.
const relayTable = `CREATE TABLE IF NOT EXISTS webhook_relay (
	outbox_id bigint PRIMARY KEY,
	event_id text NOT NULL
)`

// webhooks sends the service's webhook deliveries.
type webhooks struct {
	url    string
	client *http.Client
	// stream, when set, is the Redis the events are published to, as
	// entries of streamKey, instead of url (events.go).
	stream    *redis.Client
	streamKey string
	// attempts counts the attempts of each outbox row, for
	// new-event-id-on-retry's event IDs.
	mu       sync.Mutex
	attempts map[int64]int
	// replays numbers webhook-on-replay's extra events.
	replays int
}

func newWebhooks(url string) *webhooks {
	return &webhooks{url: url, client: &http.Client{Timeout: deliveryTimeout}, attempts: map[int64]int{}}
}

// send delivers one event and reports whether the receiver took it (a
// 2xx).
func (h *webhooks) send(ctx context.Context, ev webhookEvent) error {
	if h.stream != nil {
		return h.publish(ctx, ev)
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook to %s: %w", h.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook %s: %w", ev.EventID, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook %s: the receiver answered %d", ev.EventID, resp.StatusCode)
	}
	return nil
}

// sendRetrying delivers an event from the request, not the outbox, trying
// a refused delivery again a few times under the same event ID.
func (h *webhooks) sendRetrying(ctx context.Context, ev webhookEvent) error {
	var err error
	for range 5 {
		if err = h.send(ctx, ev); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(relayPoll):
		}
	}
	return err
}

// Relay delivers the outbox's notifications to Options.WebhookURL until
// ctx ends; it returns at once when there is no webhook, or when the
// mode sends its webhooks from the request instead. Run it beside the
// handler, one per process: several relays over one database may deliver
// a row twice, under one event ID.
func (s *Service) Relay(ctx context.Context) error {
	if s.hooks == nil || s.b.webhookBeforeCommit || s.b.webhookAtCommit || s.b.webhookAfterAnswer {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, relayTable)
		return err
	})
	if err != nil {
		return fmt.Errorf("ticketsvc: relay: create webhook_relay: %w", err)
	}
	t := time.NewTicker(relayPoll)
	defer t.Stop()
	for {
		if err := s.relayOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "webhook relay", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// relayOnce delivers the undelivered outbox rows, oldest first, until
// one is refused.
func (s *Service) relayOnce(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `SELECT o.id, t.id, t.tenant, t.request_key, t.subject
		FROM notification_outbox o JOIN tickets t ON t.id = o.ticket_id
		WHERE NOT EXISTS (SELECT 1 FROM webhook_relay r WHERE r.outbox_id = o.id)
		ORDER BY o.id LIMIT 100`)
	if err != nil {
		return fmt.Errorf("read the outbox: %w", err)
	}
	type pending struct {
		outbox int64
		ev     webhookEvent
	}
	var todo []pending
	var p pending
	_, err = pgx.ForEachRow(rows, []any{&p.outbox, &p.ev.TicketID, &p.ev.Tenant, &p.ev.RequestKey, &p.ev.Subject}, func() error {
		todo = append(todo, p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the outbox: %w", err)
	}
	for _, p := range todo {
		p.ev.EventID = s.hooks.eventID(p.outbox, s.b.newEventIDOnRetry)
		if err := s.hooks.send(ctx, p.ev); err != nil {
			return err // tried again at the next poll
		}
		_, err := s.pool.Exec(ctx, `INSERT INTO webhook_relay (outbox_id, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, p.outbox, p.ev.EventID)
		if err != nil {
			return fmt.Errorf("record delivery of outbox row %d: %w", p.outbox, err)
		}
	}
	return nil
}

// eventID is an outbox row's event ID: the same for every attempt, or,
// under newPerAttempt (new-event-id-on-retry's mistake), a new one each.
func (h *webhooks) eventID(outbox int64, newPerAttempt bool) string {
	id := "evt_" + strconv.FormatInt(outbox, 10)
	if !newPerAttempt {
		return id
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.attempts[outbox]
	h.attempts[outbox] = n + 1
	if n == 0 {
		return id
	}
	return fmt.Sprintf("%s_retry%d", id, n)
}

// replayEvent is webhook-on-replay's mistake: a replayed call announces
// its ticket again, as a new event.
func (s *Service) replayEvent(ctx context.Context, req createRequest, ticketID int64) {
	s.hooks.mu.Lock()
	s.hooks.replays++
	n := s.hooks.replays
	s.hooks.mu.Unlock()
	ev := webhookEvent{EventID: fmt.Sprintf("evt_replay_%d_%d", ticketID, n), TicketID: ticketID, Tenant: req.tenant, RequestKey: req.key, Subject: req.subject}
	if err := s.hooks.sendRetrying(ctx, ev); err != nil {
		s.log.WarnContext(ctx, "webhook on replay", "err", err)
	}
}

// beforeCommit is webhook-before-commit's mistake: the event is sent from
// the request's transaction, before its commit, which may yet roll back.
func (s *Service) beforeCommit(ctx context.Context, req createRequest, ticketID int64) {
	ev := webhookEvent{EventID: "evt_t" + strconv.FormatInt(ticketID, 10), TicketID: ticketID, Tenant: req.tenant, RequestKey: req.key, Subject: req.subject}
	if err := s.hooks.sendRetrying(ctx, ev); err != nil {
		s.log.WarnContext(ctx, "webhook before commit", "err", err)
	}
}

// afterAnswer is webhook-lost-on-crash's mistake: the event waits in the
// process's memory for the next flush, after the answer; a process that
// dies first takes it along.
func (s *Service) afterAnswer(req createRequest, ticketID int64) {
	ev := webhookEvent{EventID: "evt_t" + strconv.FormatInt(ticketID, 10), TicketID: ticketID, Tenant: req.tenant, RequestKey: req.key, Subject: req.subject}
	time.AfterFunc(afterAnswer, func() {
		if err := s.hooks.sendRetrying(context.Background(), ev); err != nil {
			s.log.Warn("webhook after the answer", "err", err)
		}
	})
}
