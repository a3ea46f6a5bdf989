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
// in the payload. Both layouts answer the same in every mode. One database
// holds one layout: Migrate refuses to add the other, naming both, and a
// Service answers 500 (logging why) until its database holds its layout.
//
// # Bug zoo
//
// Options.Bug switches in one deliberate mistake (see Bugs), so that
// idemstress can show it catches each of them; every mistake shows the same
// way in both layouts:
//
//   - outbox-on-retry: a replay enqueues another notification for the ticket.
//   - no-payload-check: a changed payload replays the original ticket.
//   - global-keys: keys are looked up and locked without their tenant, so
//     one tenant's key replays another tenant's ticket.
//   - raw-body-fingerprint: the fingerprint is of the body's bytes, not its
//     canonical JSON, so a retry re-encoding the same JSON (whitespace, key
//     order, \u escapes) is refused with 422 instead of replayed.
//
// With no bug the service is correct, including under concurrent duplicates.
package ticketsvc
