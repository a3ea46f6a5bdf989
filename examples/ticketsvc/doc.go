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
// Options.Bug switches in one deliberate mistake from a "bug zoo" (see Bugs),
// so that idemstress can show it catches each of them. With no bug the
// service is correct, including under concurrent duplicates.
package ticketsvc
