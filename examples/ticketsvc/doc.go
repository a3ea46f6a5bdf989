// Package ticketsvc is idemstress's sample target: a small HTTP service over
// PostgreSQL whose POST /tickets endpoint is idempotent per (tenant, key).
//
// A new key writes, in one transaction, a tickets row, a notification_outbox
// row referencing it, and an idempotency_keys row holding the payload's
// fingerprint (its canonical JSON). A retry with an equivalent payload replays
// the stored ticket ID without writing; a retry with a different payload is
// rejected with 422; a retry while the first call's transaction is still open
// is rejected with 409, because the first call holds a transaction-scoped
// advisory lock on the action.
//
// # Layouts
//
// The tables come in two layouts (see Layouts), chosen by Migrate and
// Options.Layout, which must agree. In LayoutKeys, the default, tickets and
// notification_outbox carry tenant and request_key columns, so every effect
// row names its action. In LayoutTagged, as behind many idempotency
// middlewares, the key lives only in idempotency_keys: tickets has a tenant
// but no key, and notification_outbox only a ticket_id, so a checker
// attributes their rows through idempotency_keys.ticket_id or through a tag
// in the payload. Both layouts answer the same in every mode.
//
// Each layout comes with unique constraints on an action (idempotency_keys'
// primary key on tenant and key, and in LayoutKeys a unique tenant and key
// in tickets), a backstop should the lock ever be skipped; or without them,
// plain indexes in their place, for the modes whose mistake they would hide
// (Migrate's ForBug option chooses). One database holds one schema: Migrate
// refuses to add another layout, or the same layout the other way, naming
// both, and a Service answers 500 (logging why) until its database holds
// the schema of its layout and mode.
//
// # Bug zoo
//
// Options.Bug switches in one deliberate mistake (see Bugs), or several
// joined by commas ("no-payload-check,global-keys"), so that idemstress can
// show it catches each of them, and all of them in one run; every mistake
// shows the same way in both layouts:
//
//   - outbox-on-retry: a replay enqueues another notification for the ticket.
//   - no-payload-check: a changed payload replays the original ticket.
//   - global-keys: keys are looked up and locked without their tenant, so
//     one tenant's key replays another tenant's ticket.
//   - raw-body-fingerprint: the fingerprint is of the body's bytes, not its
//     canonical JSON, so a retry re-encoding the same JSON (whitespace, key
//     order, \u escapes) is refused with 422 instead of replayed.
//   - stores-refusals: a call refused for its payload (a priority out of
//     range, no subject) saves its 400 under the key, and every later call
//     of the key gets it: the corrected call is refused, nothing created.
//   - check-then-insert: no lock; the key is looked up, then inserted, over
//     tables without unique constraints. Concurrent calls of one action
//     both find nothing and both create: two tickets, two notifications.
//   - unique-violation-500: no lock, but the unique constraints hold. The
//     loser of a concurrent duplicate hits the unique violation and answers
//     500, instead of 409 or a replay; no duplicate rows are ever written.
//   - process-mutex: calls of one action are serialised by a mutex in the
//     Service, not in the database, over tables without unique constraints.
//     Correct with one process; with two (or two Services over one
//     database), concurrent calls of one action, one to each, both create.
//   - hang-on-burst: a request identical to one in flight in the process
//     (tenant, key, payload) joins it, to be answered with its result, which
//     the first never hands over: all but the first of a burst of identical
//     calls hang until their client gives up.
//
// The last four are correct one call at a time; only concurrent calls of
// one action show them. One more shows only when the service runs as a
// process and a fault ends a call's database session:
//
//   - exits-on-db-error: a call whose database session is ended under it
//     (a failover, an idle-session reaper) is not handled: the process
//     exits, as a Node service does on an unhandled 'error' event of its
//     database client, and the call gets no answer. Only a service run as
//     a process with the db-error fault shows it.
//
// With no bug the service is correct, including under concurrent duplicates
// and across any number of processes over one database.
//
// # Webhook
//
// With Options.WebhookURL (the -webhook-url flag) the service announces
// each ticket it creates with a POST of JSON (event_id, ticket_id, tenant,
// request_key, subject), through its outbox: Relay, run beside the handler,
// delivers the notification_outbox rows not yet recorded in webhook_relay
// and tries a refused delivery again under the same event ID, so an event
// leaves only after its commit and survives a crash, at least once
// (contract_webhook.yaml declares it as an idemstress sink). The webhook's
// mistakes (see WebhookBugs) need a contract with the sink to show:
//
//   - webhook-on-replay: a replay announces the ticket again, as a new event.
//   - new-event-id-on-retry: a refused delivery is tried again under a new
//     event ID.
//   - webhook-before-commit: the event is sent from the request's
//     transaction, before its commit, which a crash then rolls back.
//   - webhook-lost-on-crash: the event waits in memory after the answer,
//     and a process that crashes first loses it.
//
// With Options.EventsRedisURL (-events-redis-url) instead, the same outbox
// publishes each event to a Redis stream (EventsStream, default
// tickets:events) as an entry of those fields, and the webhook's mistakes
// are made on the stream (contract_events.yaml declares it as an
// idemstress sink read from the Redis).
//
// WebhookAtCommit (webhook-at-commit) sends the event from the request
// after all its writes, right before the COMMIT: only a crash held at
// that point (crash-at before commit 1) shows it. It is none of
// WebhookBugs.
//
// Options.OnArrival, if set, sees the time each request reaches the handler,
// before any database work: a benchmark measures with it how closely the
// calls of a burst arrive.
package ticketsvc
