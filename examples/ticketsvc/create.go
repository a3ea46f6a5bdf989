package ticketsvc

import (
	"context"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// outcome is the answer to a create call that reached the database.
type outcome struct {
	status   int
	ticketID int64  // for 200 and 201
	msg      string // for errors
}

var (
	inFlight = outcome{status: http.StatusConflict,
		msg: "a request with this Idempotency-Key is still being processed; retry later"}
	payloadMismatch = outcome{status: http.StatusUnprocessableEntity,
		msg: "this Idempotency-Key was already used with a different payload"}
)

// create answers a create call: it checks the database's schema on the
// first call, holds the process-side guards some modes add, and hands the
// call to the design the mode selects; by default createOneTx.
func (s *Service) create(ctx context.Context, req createRequest) (outcome, error) {
	if err := s.checkSchema(ctx); err != nil {
		return outcome{}, err
	}
	release, err := s.guard(ctx, req)
	if err != nil {
		return outcome{}, err
	}
	defer release()
	switch {
	case s.b.redisReserved:
		return s.createReserved(ctx, req)
	case s.b.stuckInFlight:
		return s.createMarked(ctx, req)
	case s.b.keyTxFirst:
		return s.createKeyTxFirst(ctx, req)
	case s.b.effectsTxFirst:
		return s.createEffectsTxFirst(ctx, req)
	case s.b.shortLease:
		return s.createLeased(ctx, req)
	}
	return s.createOneTx(ctx, req)
}

// guard takes what the process-mutex and hang-on-burst modes hold around
// a call in this process, the action's mutex and then the request's
// place among identical ones in flight; release lets go of them in the
// opposite order. The mutex is held until the transaction has ended, so
// that the next call of the action sees its writes.
func (s *Service) guard(ctx context.Context, req createRequest) (release func(), err error) {
	unlock, leave := func() {}, func() {}
	if s.mutex != nil {
		if unlock, err = s.mutex.lock(ctx, action{req.tenant, req.lookup}); err != nil {
			return nil, err
		}
	}
	if s.identical != nil {
		if leave, err = s.identical.join(ctx, req); err != nil {
			unlock()
			return nil, err
		}
	}
	return func() { leave(); unlock() }, nil
}

// createOneTx runs a create call in one transaction: lock the action, look
// up its key, then either answer from the stored key or write ticket,
// outbox and key together (createTx). Any error rolls everything back;
// the modes whose mistake comes after the commit make it in afterCommit.
func (s *Service) createOneTx(ctx context.Context, req createRequest) (outcome, error) {
	var out outcome
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		out, err = s.createTx(ctx, tx, req)
		return err
	})
	if isUniqueViolation(err) && !s.b.uniqueViolationIs500 {
		// Unreachable while every writer takes the action lock; should a
		// writer ever skip it, the constraint still stops the duplicate, and
		// the winner was in flight alongside us. unique-violation-500 skips
		// the lock and then fails the loser instead.
		return inFlight, nil
	}
	if err != nil {
		return outcome{}, err
	}
	if out.status == http.StatusCreated {
		if err := s.afterCommit(ctx, req, out.ticketID); err != nil {
			return outcome{}, err
		}
	}
	return out, nil
}

// afterCommit does what some modes do once a new ticket has committed:
// complete the key record (complete-after-commit) or write the
// notification (non-atomic) in a transaction of its own, which is their
// mistake, and remember the key in process memory.
func (s *Service) afterCommit(ctx context.Context, req createRequest, id int64) error {
	if s.b.completeAfterCommit {
		// The mistake: the key record is completed only after the
		// effects have committed, in a transaction of its own.
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return setKeyTicket(ctx, tx, req, id) })
		if err != nil {
			return err
		}
	}
	if s.memory != nil {
		s.memory.store(action{req.tenant, req.lookup}, storedKey{fingerprint: req.fingerprint, ticketID: id})
	}
	if s.b.nonAtomic {
		// The mistake: the notification in a transaction of its own,
		// after the ticket and its key have committed.
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			return insertOutbox(ctx, tx, s.schema.spec, req, id)
		})
	}
	return nil
}

// createTx is createOneTx's transaction: it locks the action (or, in
// key-first mode, claims the key), looks the key up and replays a stored
// one; a new key's writes are writeNew's.
func (s *Service) createTx(ctx context.Context, tx pgx.Tx, req createRequest) (outcome, error) {
	if s.b.keyFirst {
		return s.createKeyFirst(ctx, tx, req)
	}
	if !s.b.noActionLock {
		// The lock must come before the lookup, in its own statement: under
		// READ COMMITTED the lookup then sees whatever the previous holder
		// committed.
		locked, err := tryLockAction(ctx, tx, req.tenant, req.lookup, s.b.globalKeys)
		if err != nil {
			return outcome{}, err
		}
		if !locked {
			return inFlight, nil
		}
	}
	prior, found, err := s.findKey(ctx, tx, req)
	if err != nil {
		return outcome{}, err
	}
	if found && prior.ticketID == 0 {
		return inFlight, nil // complete-after-commit: not completed yet
	}
	if found {
		return s.replay(ctx, tx, req, prior)
	}
	return s.writeNew(ctx, tx, req)
}

// writeNew writes a new key's ticket, notification and key record in tx.
// The modes that get this wrong do so here: a key claimed empty and
// completed after the commit, a notification left out of tx, a webhook
// sent before the COMMIT, a redis record that may be skipped.
func (s *Service) writeNew(ctx context.Context, tx pgx.Tx, req createRequest) (outcome, error) {
	if s.b.completeAfterCommit {
		if _, err := claimKey(ctx, tx, req); err != nil {
			return outcome{}, err
		}
	}
	id, err := insertTicket(ctx, tx, s.schema.spec, req)
	if err != nil {
		return outcome{}, err
	}
	if s.hooks != nil && s.b.webhookBeforeCommit {
		s.beforeCommit(ctx, req, id)
	}
	if s.b.completeAfterCommit {
		if err := insertOutbox(ctx, tx, s.schema.spec, req, id); err != nil {
			return outcome{}, err
		}
		return outcome{status: http.StatusCreated, ticketID: id}, nil
	}
	if !s.b.nonAtomic {
		if err := insertOutbox(ctx, tx, s.schema.spec, req, id); err != nil {
			return outcome{}, err
		}
	}
	if err := insertKey(ctx, tx, req, id); err != nil {
		return outcome{}, err
	}
	if err := s.storeRedis(ctx, req, id); err != nil {
		return outcome{}, err
	}
	if s.hooks != nil && s.b.webhookAtCommit {
		// After the last write, before the COMMIT that pgx.BeginFunc sends.
		s.beforeCommit(ctx, req, id)
	}
	return outcome{status: http.StatusCreated, ticketID: id}, nil
}

// storeRedis stores a new key's record in redis, where the service keeps
// its keys there, before the commit (see keyRedis).
// keys-in-redis-fail-open's mistake: "Redis is only a cache", so a failed
// store is skipped and the ticket commits without the record that guards it.
func (s *Service) storeRedis(ctx context.Context, req createRequest, id int64) error {
	if s.redis == nil {
		return nil
	}
	err := s.redis.store(ctx, action{req.tenant, req.lookup}, storedKey{fingerprint: req.fingerprint, ticketID: id})
	if err != nil && s.b.redisFailOpen {
		s.log.WarnContext(ctx, "redis: storing a key's record failed; skipped", "err", err)
		return nil
	}
	return err
}

// createKeyFirst claims the key before anything else: the INSERT of the
// key row waits on a concurrent duplicate's uncommitted row, and once that
// one commits the call replays it. The key row names no ticket until the
// ticket is written, in the same transaction.
func (s *Service) createKeyFirst(ctx context.Context, tx pgx.Tx, req createRequest) (outcome, error) {
	claimed, err := claimKey(ctx, tx, req)
	if err != nil {
		return outcome{}, err
	}
	if !claimed {
		prior, found, err := s.findKey(ctx, tx, req)
		if err != nil {
			return outcome{}, err
		}
		if !found {
			return inFlight, nil // claimed and released between our statements
		}
		return s.replay(ctx, tx, req, prior)
	}
	return s.createClaimed(ctx, tx, req)
}

// createClaimed writes the ticket and its notification of a call whose
// key record is claimed, and names the ticket there, all in tx: the
// designs that claim the key first (key-first, stuck-in-flight,
// short-lease) complete it this way.
func (s *Service) createClaimed(ctx context.Context, tx pgx.Tx, req createRequest) (outcome, error) {
	id, err := insertTicket(ctx, tx, s.schema.spec, req)
	if err != nil {
		return outcome{}, err
	}
	if err := insertOutbox(ctx, tx, s.schema.spec, req, id); err != nil {
		return outcome{}, err
	}
	if err := setKeyTicket(ctx, tx, req, id); err != nil {
		return outcome{}, err
	}
	return outcome{status: http.StatusCreated, ticketID: id}, nil
}

// createMarked is the stuck-in-flight mode: it commits the key as in
// progress, then does the work in a second transaction. A call that finds
// the key in progress answers in_flight. The mistake: nothing ever clears
// a key whose work was cut off (a crash, an error), so its retries answer
// in_flight forever.
func (s *Service) createMarked(ctx context.Context, req createRequest) (outcome, error) {
	var claimed, found bool
	var prior storedKey
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if s.b.uniqueViolationIs500 {
			// With unique-violation-500 as well: look the key up, then
			// mark it, nothing in between. The loser of a concurrent
			// duplicate hits the unique constraint and answers 500.
			if prior, found, err = s.findKey(ctx, tx, req); err != nil || found {
				return err
			}
			claimed = true
			return markKey(ctx, tx, req)
		}
		if claimed, err = claimKey(ctx, tx, req); err != nil || claimed {
			return err
		}
		prior, found, err = s.findKey(ctx, tx, req)
		return err
	})
	switch {
	case err != nil:
		return outcome{}, err
	case !claimed && (!found || prior.ticketID == 0):
		return inFlight, nil
	}
	var out outcome
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if !claimed {
			out, err = s.replay(ctx, tx, req, prior)
			return err
		}
		out, err = s.createClaimed(ctx, tx, req)
		return err
	})
	return out, err
}

// findKey looks the call's key up: in the database, or in the process's
// memory in the memory-keys mode.
func (s *Service) findKey(ctx context.Context, tx pgx.Tx, req createRequest) (storedKey, bool, error) {
	if s.memory != nil {
		k, ok := s.memory.find(action{req.tenant, req.lookup})
		return k, ok, nil
	}
	if s.redis != nil {
		return s.redis.find(ctx, action{req.tenant, req.lookup})
	}
	return findKey(ctx, tx, req.tenant, req.lookup, s.b.globalKeys)
}

// replay answers a call whose key is already stored.
func (s *Service) replay(ctx context.Context, tx pgx.Tx, req createRequest, prior storedKey) (outcome, error) {
	if prior.fingerprint != req.fingerprint && !s.b.skipPayloadCheck {
		return payloadMismatch, nil
	}
	if s.b.outboxOnReplay {
		if err := insertOutbox(ctx, tx, s.schema.spec, req, prior.ticketID); err != nil {
			return outcome{}, err
		}
	}
	return outcome{status: http.StatusOK, ticketID: prior.ticketID}, nil
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
