package ticketsvc

import (
	"fmt"
	"slices"
	"strings"
)

// behavior is what a mode changes in the request flow. The correct mode is
// the zero value; each bug flips exactly the switches that make up its
// mistake, so a new bug is one new field here and one entry in bugModes.
type behavior struct {
	// globalKeys looks keys up (and locks them) ignoring the tenant.
	globalKeys bool
	// skipPayloadCheck replays the stored ticket even when the payload differs.
	skipPayloadCheck bool
	// outboxOnReplay enqueues another notification on every replay.
	outboxOnReplay bool
	// rawBodyFingerprint fingerprints the body's bytes, not its canonical
	// JSON, so a re-encoded retry looks like a changed payload.
	rawBodyFingerprint bool
	// noActionLock skips the advisory lock on the action: nothing in the
	// database keeps two calls of one action from both passing the lookup.
	noActionLock bool
	// uniqueViolationIs500 fails a call that hits a unique violation like
	// any database error, instead of answering it as in flight.
	uniqueViolationIs500 bool
	// processMutex serialises the calls of one action by a mutex in this
	// process, where the database's lock would serialise them everywhere.
	processMutex bool
	// subjectFingerprint fingerprints the subject alone: a payload that
	// differs in another field is replayed as if it were the same.
	subjectFingerprint bool
	// queryInKey makes the request's query string part of the key, so a
	// retry with a tracing parameter is another action.
	queryInKey bool
	// trimKeys trims the key before using it, though the contract says
	// keys are exact: "k1" and "k1 " become one action.
	trimKeys bool
	// memoryKeys keeps the key → ticket map in process memory instead of
	// the database: a restarted process has forgotten every key.
	memoryKeys bool
	// redisKeys keeps the key → ticket records in Redis (Options.RedisURL)
	// instead of the database: whether they outlive a restart of Redis is
	// how Redis is run (see keyRedis).
	redisKeys bool
	// redisReserved reserves the key in Redis, decides in PostgreSQL and
	// completes the record after the commit (see createReserved):
	// correct, whatever Redis keeps.
	redisReserved bool
	// redisFailOpen treats Redis as a cache that must never fail a call:
	// a record it cannot write is logged and skipped, and the effects
	// commit without it, so the retry finds no record and creates again.
	redisFailOpen bool
	// nonAtomic writes the ticket (and its key) in one transaction and
	// the outbox row in a second: a crash between them leaves a ticket
	// that a retry replays without its notification.
	nonAtomic bool
	// keyFirst claims the key first (INSERT … ON CONFLICT DO NOTHING) and
	// writes the ticket after: a concurrent duplicate waits on the key
	// row's lock instead of answering in_flight, then replays. Correct,
	// over a schema whose key reference is checked at commit.
	keyFirst bool
	// stuckInFlight commits its key row as in progress (no ticket yet)
	// before the work, and never clears it when the work does not finish:
	// after a crash every retry answers in_flight, forever.
	stuckInFlight bool
	// completeAfterCommit claims the key as in progress in the effects'
	// transaction and completes it (names its ticket) in a second one,
	// after the commit: a crash between the two leaves a committed ticket
	// whose key is in progress forever, and every retry answers in_flight.
	completeAfterCommit bool
	// keyTxFirst commits its key row as in progress in a transaction of
	// its own, then the ticket, its notification and the key's completion
	// in a second; it releases the key when the work fails, not when the
	// process dies: a crash after the first commit leaves the key in
	// progress forever (see createKeyTxFirst).
	keyTxFirst bool
	// effectsTxFirst commits the ticket and its notification in one
	// transaction and the key record in a second, under a lock on the
	// action its session holds across both: a crash between them leaves a
	// ticket no key names, and the retry creates another (see
	// createEffectsTxFirst).
	effectsTxFirst bool
	// storesErrors keeps the answer of a call that failed (a 500) under
	// its key, in the process, and replays it to every later call of the
	// key, as response-caching middlewares do: one passing database error
	// and the key fails for as long as it is kept, nothing ever created.
	storesErrors bool
	// shortLease claims the key in a committed transaction of its own
	// with an expiry (now + Lease) and does the work after, in a second
	// one; a call that finds the claim expired takes it over and executes
	// again, though the original may still be running: a slow original
	// and its retry both create (the known bug class of a widely used
	// Lambda idempotency library).
	shortLease bool
	// joinIdentical joins a request identical to one in flight in this
	// process (tenant, key, payload) to it, and never hands it the
	// result: a burst of identical calls hangs all but the first.
	joinIdentical bool
	// storesRefusals keeps the answer of a call refused for its input (a
	// 400 for a priority out of range, a missing subject) under its key,
	// in the process, and replays it to every later call of the key, as a
	// response cache in front of the validation does: the corrected call
	// with the same key is refused for as long as the key is kept, though
	// nothing was ever created (the mistake Stripe's documentation warns
	// of).
	storesRefusals bool
	// exitsOnSessionEnd exits the process when a call's database session
	// is ended under it (a failover, an idle-session reaper, a restarted
	// pooler), instead of answering the call 500: the error is not
	// handled, as a Node service's unhandled 'error' event of its
	// database client ends the process. Correct otherwise.
	exitsOnSessionEnd bool
	// webhookOnReplay announces a replayed call's ticket again, as a new
	// event (Options.WebhookURL).
	webhookOnReplay bool
	// newEventIDOnRetry gives each attempt of an outbox row's delivery a
	// new event ID: a receiver that deduplicates by ID takes a retry
	// after its own 500 for a second event.
	newEventIDOnRetry bool
	// webhookBeforeCommit sends the webhook from the request's
	// transaction, before its commit, instead of through the outbox: a
	// transaction that then rolls back (a crash) announced a ticket that
	// never was.
	webhookBeforeCommit bool
	// webhookAtCommit is webhookBeforeCommit's mistake made later: the
	// webhook leaves after the transaction's last write, right before its
	// COMMIT, so that a crash at the last effect table's write comes too
	// early to show it (see WebhookAtCommit).
	webhookAtCommit bool
	// webhookAfterAnswer keeps the webhook in process memory after the
	// commit and the answer, flushed later, instead of the outbox: a
	// process that crashes first loses it.
	webhookAfterAnswer bool
	// unconstrained runs the mode over the schema without the unique
	// constraints on an action, which would otherwise stop the duplicates
	// its mistake lets through (see ForBug).
	unconstrained bool
}

// bugMode is one entry of the bug zoo.
type bugMode struct {
	name string
	b    behavior
}

// bugModes lists the bug zoo in its documented order.
var bugModes = []bugMode{
	{name: "outbox-on-retry", b: behavior{outboxOnReplay: true}},
	{name: "no-payload-check", b: behavior{skipPayloadCheck: true}},
	{name: "global-keys", b: behavior{globalKeys: true}},
	{name: "raw-body-fingerprint", b: behavior{rawBodyFingerprint: true}},
	{name: "check-then-insert", b: behavior{noActionLock: true, unconstrained: true}},
	{name: "unique-violation-500", b: behavior{noActionLock: true, uniqueViolationIs500: true}},
	{name: "process-mutex", b: behavior{noActionLock: true, processMutex: true, unconstrained: true}},
	{name: "partial-fingerprint", b: behavior{subjectFingerprint: true}},
	{name: "query-in-key", b: behavior{queryInKey: true, unconstrained: true}},
	{name: "trimmed-keys", b: behavior{trimKeys: true}},
	{name: "memory-keys", b: behavior{memoryKeys: true, unconstrained: true}},
	{name: "non-atomic", b: behavior{nonAtomic: true}},
	{name: "stuck-in-flight", b: behavior{stuckInFlight: true, noActionLock: true}},
	{name: "stores-errors", b: behavior{storesErrors: true}},
	{name: "complete-after-commit", b: behavior{completeAfterCommit: true}},
	{name: "key-tx-first", b: behavior{keyTxFirst: true}},
	{name: "effects-tx-first", b: behavior{effectsTxFirst: true, unconstrained: true}},
	{name: "short-lease", b: behavior{shortLease: true, unconstrained: true}},
	{name: "hang-on-burst", b: behavior{joinIdentical: true}},
	{name: "stores-refusals", b: behavior{storesRefusals: true}},
	{name: "exits-on-db-error", b: behavior{exitsOnSessionEnd: true}},
}

// correctModes are other correct designs of the service, accepted by
// Options.Bug like the bugs.
var correctModes = []bugMode{
	{name: "key-first", b: behavior{keyFirst: true, noActionLock: true}},
}

// redisModes keep their keys in a Redis (Options.RedisURL), so they need
// one to run: keys-in-redis over a Redis without persistence (a bug: a
// restarted Redis has forgotten every key), keys-in-redis-durable, the
// same code, over one with an append-only file fsynced on every write (a
// bug all the same: its record is written before the PostgreSQL commit
// it describes, and a crash between the two leaves a record of a ticket
// that never committed), and keys-in-redis-reserved, which reserves in
// Redis, decides in PostgreSQL and completes the record after the
// commit (correct), and keys-in-redis-fail-open, keys-in-redis's code over
// a durable Redis whose failure to store a record is skipped (a bug: the
// effects commit without their record, and the retry creates again).
var redisModes = []bugMode{
	{name: "keys-in-redis", b: behavior{redisKeys: true, unconstrained: true}},
	{name: "keys-in-redis-durable", b: behavior{redisKeys: true, unconstrained: true}},
	{name: "keys-in-redis-reserved", b: behavior{redisKeys: true, redisReserved: true}},
	{name: "keys-in-redis-fail-open", b: behavior{redisKeys: true, redisFailOpen: true, unconstrained: true}},
}

// RedisModes returns the names of the modes that keep their keys in a
// Redis (Options.RedisURL), accepted by Options.Bug and ForBug.
func RedisModes() []string {
	names := make([]string, len(redisModes))
	for i, m := range redisModes {
		names[i] = m.name
	}
	return names
}

// allModes are the bug modes, the other correct designs and the modes
// that keep their keys in Redis.
func allModes() []bugMode {
	return slices.Concat(bugModes, correctModes, redisModes, webhookModes, []bugMode{webhookAtCommitMode})
}

// CorrectModes returns the names of the correct designs besides the
// default one, accepted by Options.Bug and ForBug.
func CorrectModes() []string {
	names := make([]string, len(correctModes))
	for i, m := range correctModes {
		names[i] = m.name
	}
	return names
}

// Bugs returns the names accepted by Options.Bug, in documented order.
func Bugs() []string {
	names := make([]string, len(bugModes))
	for i, m := range bugModes {
		names[i] = m.name
	}
	return names
}

// behaviorFor returns the behavior of the named mode: "" is the correct
// mode, and a comma-separated list ("no-payload-check,global-keys")
// switches in every mistake it names at once (see or). An unknown or empty
// name is refused with the list of valid ones.
func behaviorFor(bug string) (behavior, error) {
	if bug == "" {
		return behavior{}, nil
	}
	modes := allModes()
	var all behavior
	for _, name := range strings.Split(bug, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(modes, func(m bugMode) bool { return m.name == name })
		if i < 0 {
			return behavior{}, fmt.Errorf("ticketsvc: unknown bug mode %q in %q (valid: %s, or several joined by commas; correct designs: %s; keys in Redis: %s; webhooks: %s; empty for the correct mode)",
				name, bug, strings.Join(Bugs(), ", "), strings.Join(CorrectModes(), ", "), strings.Join(RedisModes(), ", "), strings.Join(WebhookBugs(), ", "))
		}
		all = all.or(modes[i].b)
	}
	return all, nil
}

// or switches in both behaviors' mistakes. Where two change the same step
// the request flow decides which shows: raw-body-fingerprint's fingerprint
// wins over partial-fingerprint's. The schema is unconstrained when either
// mode needs it. (A test checks every field is here.)
func (b behavior) or(o behavior) behavior {
	return behavior{
		globalKeys:           b.globalKeys || o.globalKeys,
		skipPayloadCheck:     b.skipPayloadCheck || o.skipPayloadCheck,
		outboxOnReplay:       b.outboxOnReplay || o.outboxOnReplay,
		rawBodyFingerprint:   b.rawBodyFingerprint || o.rawBodyFingerprint,
		noActionLock:         b.noActionLock || o.noActionLock,
		uniqueViolationIs500: b.uniqueViolationIs500 || o.uniqueViolationIs500,
		processMutex:         b.processMutex || o.processMutex,
		subjectFingerprint:   b.subjectFingerprint || o.subjectFingerprint,
		queryInKey:           b.queryInKey || o.queryInKey,
		trimKeys:             b.trimKeys || o.trimKeys,
		memoryKeys:           b.memoryKeys || o.memoryKeys,
		redisKeys:            b.redisKeys || o.redisKeys,
		redisReserved:        b.redisReserved || o.redisReserved,
		redisFailOpen:        b.redisFailOpen || o.redisFailOpen,
		nonAtomic:            b.nonAtomic || o.nonAtomic,
		keyFirst:             b.keyFirst || o.keyFirst,
		stuckInFlight:        b.stuckInFlight || o.stuckInFlight,
		storesErrors:         b.storesErrors || o.storesErrors,
		completeAfterCommit:  b.completeAfterCommit || o.completeAfterCommit,
		keyTxFirst:           b.keyTxFirst || o.keyTxFirst,
		effectsTxFirst:       b.effectsTxFirst || o.effectsTxFirst,
		shortLease:           b.shortLease || o.shortLease,
		joinIdentical:        b.joinIdentical || o.joinIdentical,
		storesRefusals:       b.storesRefusals || o.storesRefusals,
		exitsOnSessionEnd:    b.exitsOnSessionEnd || o.exitsOnSessionEnd,
		webhookOnReplay:      b.webhookOnReplay || o.webhookOnReplay,
		newEventIDOnRetry:    b.newEventIDOnRetry || o.newEventIDOnRetry,
		webhookBeforeCommit:  b.webhookBeforeCommit || o.webhookBeforeCommit,
		webhookAtCommit:      b.webhookAtCommit || o.webhookAtCommit,
		webhookAfterAnswer:   b.webhookAfterAnswer || o.webhookAfterAnswer,
		unconstrained:        b.unconstrained || o.unconstrained,
	}
}

// pendingKeys reports whether the mode writes a key row before its
// ticket, so that the schema must let a key row name no ticket yet.
func (b behavior) pendingKeys() bool {
	return b.keyFirst || b.stuckInFlight || b.completeAfterCommit || b.shortLease || b.keyTxFirst
}

// leases reports whether the mode stamps its key rows with a lease
// expiry, so that the schema must have the column for it.
func (b behavior) leases() bool { return b.shortLease }

// modeName names a mode in messages.
func modeName(bug string) string {
	switch {
	case bug == "":
		return "the correct mode"
	case slices.Contains(CorrectModes(), bug):
		return fmt.Sprintf("the correct mode %q", bug)
	}
	return fmt.Sprintf("bug mode %q", bug)
}
