// Package paysvc is idemstress's second sample target, of another shape
// than ticketsvc: a Square-like payments API over PostgreSQL.
//
// # API
//
//	POST /v2/merchants/{merchant}/payments
//	{"idempotency_key": "...", "amount_money": {"amount": 1250, "currency": "USD"},
//	 "source_id": "cnon:card-nonce-ok", "note": "..."}
//
// The merchant (the tenant) is a path segment, the key a field of the JSON
// body, and keys are scoped per merchant. The body is decoded strictly into
// typed structs: an unknown field is refused, and amount is an int64, so
// 1250.0 or 1.25e3 is refused too. Every answer is JSON (openapi.yaml
// describes them all):
//
//   - 200 {"payment": {"id": "17", "amount_money": {...}, "status": "COMPLETED", ...}}
//     on create and on every replay, byte for byte the same body.
//   - 400 IDEMPOTENCY_KEY_REUSED: the key was used with another request.
//     Requests are compared by the canonical JSON value of the body without
//     its key (key order, whitespace and string escapes do not count).
//   - 400 MISSING_REQUIRED_PARAMETER with "field": "idempotency_key": no key
//     (or another field missing, named in "field").
//   - 400 INVALID_VALUE (amount outside 1..100000000, a currency not in
//     Currencies, a note over 500 characters, a source_id over 192, a key or
//     merchant over 255 bytes, a number that is not an integer literal) or
//     BAD_REQUEST (not one JSON object, an unknown field).
//   - 409 IDEMPOTENCY_KEY_IN_USE: another call of the key was still running
//     after this one waited Options.InUseAfter (2 s by default) for it.
//
// Errors are {"errors": [{"category": ..., "code": ..., "detail": ..., "field": ...}]}.
// With Options.KeyHeader ("-key-header X-Request-Id") the key travels in
// that header instead, and a body with idempotency_key is refused; without
// it, X-Request-Id is tracing and ignored.
//
// # Design
//
// A call runs in one transaction that first claims its key: INSERT INTO
// idempotency_keys ... ON CONFLICT DO NOTHING, under a lock_timeout of
// InUseAfter. A concurrent call of the key waits on the first call's
// uncommitted key row; when the first commits, the insert does nothing and
// the call replays the stored payment (or refuses a changed request); had
// the first rolled back, the insert claims the key; had it not ended in
// time, the call answers 409 and writes nothing. Only the call holding the
// claim writes the payments row and its ledger_entries row, and names the
// payment in the key row, all in the same transaction, so a key names one
// payment across any number of processes over one database. A crash
// aborts the transaction: no key is left claimed without its payment.
// Tables: payments(id, merchant, idempotency_key, amount, currency,
// source_id, note, status, request_fingerprint, created_at), ledger_entries(id,
// payment_id, merchant, amount), idempotency_keys(merchant,
// idempotency_key, payment_id); integers are bigint.
//
// # Bug zoo
//
// Options.Bug ("-bug") switches in one deliberate mistake, or several
// joined by commas:
//
//	mode             mistake                                               idemstress reports
//	replay-changed   a reused key with another request replays the         IDEM-004
//	                 original payment instead of 400
//	merchant-leak    keys are looked up across merchants: merchant B with  IDEM-007, IDEM-002
//	                 A's key gets A's payment
//	racy-insert      the payment is looked up, then inserted, with no      IDEM-001, IDEM-003
//	                 lock or constraint between: a burst of one key makes
//	                 two payments (correct one call at a time)
//	ledger-on-retry  every replay writes another ledger entry              IDEM-001
//
// The last column is what a run of today's idemstress with contract.yaml
// (in the -key-header X-Request-Id mode) reported, each with a minimal
// plan of one or two steps.
package paysvc
