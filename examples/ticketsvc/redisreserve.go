package ticketsvc

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// keys-in-redis-reserved is the correct design with keys in Redis and
// effects in PostgreSQL: the reservation pattern, with the store that
// commits the effects deciding.
//
//  1. Reserve: SET idem:… {"state":"pending"} NX GET, one command. A
//     record already done (written after its commit, below) is replayed
//     from Redis; anything else (reserved now, pending, or Redis
//     unreachable) goes on to step 2.
//  2. Decide in PostgreSQL, in one transaction: the action's advisory
//     lock (held elsewhere: in_flight), its key row (found: replay it),
//     else the ticket, its notification and the key row, committed
//     together. PostgreSQL's key row, not Redis's record, says whether
//     the work was done.
//  3. Complete: SET idem:… {"state":"done", …} after the commit, with
//     the committed row's fingerprint and ticket. Best effort: should it
//     fail, the record stays pending and the next call decides in step 2.
//
// Every state a crash, a lost reply or an error leaves between the steps
// is resolvable: a pending record whose work never committed is taken
// over once its transaction is gone (the lock is free, no key row); one
// whose work committed is replayed from the key row and completed. A
// done record names a ticket that committed, so it is never a phantom,
// and a Redis that forgets records (no persistence) costs only a trip to
// PostgreSQL. What the mode must not do is what keys-in-redis-durable
// does: trust a Redis record written before the commit it describes.

// createReserved is keys-in-redis-reserved's create.
func (s *Service) createReserved(ctx context.Context, req createRequest) (outcome, error) {
	a := action{req.tenant, req.lookup}
	if prior, done := s.redis.reserve(ctx, a, req.fingerprint); done {
		if prior.fingerprint != req.fingerprint {
			return payloadMismatch, nil
		}
		return outcome{status: http.StatusOK, ticketID: prior.ticketID}, nil
	}
	var out outcome
	var stored storedKey // the key row as committed, for the record
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		locked, err := tryLockAction(ctx, tx, req.tenant, req.lookup, false)
		if err != nil || !locked {
			out = inFlight
			return err
		}
		prior, found, err := findKey(ctx, tx, req.tenant, req.lookup, false)
		if err != nil {
			return err
		}
		if found {
			stored = prior
			out, err = s.replay(ctx, tx, req, prior)
			return err
		}
		id, err := insertTicket(ctx, tx, s.schema.spec, req)
		if err != nil {
			return err
		}
		if err := insertOutbox(ctx, tx, s.schema.spec, req, id); err != nil {
			return err
		}
		stored = storedKey{fingerprint: req.fingerprint, ticketID: id}
		out = outcome{status: http.StatusCreated, ticketID: id}
		return insertKey(ctx, tx, req, id)
	})
	if err != nil {
		return outcome{}, err
	}
	if stored.ticketID != 0 {
		s.redis.complete(ctx, a, stored)
	}
	return out, nil
}

// reserve sets the action's record to pending unless it has one, and
// returns the record it had when that one is done. A record that cannot
// be read, or Redis's failure, is no answer: PostgreSQL decides.
func (r *keyRedis) reserve(ctx context.Context, a action, fingerprint string) (storedKey, bool) {
	pending, _ := json.Marshal(redisRecord{State: "pending", Fingerprint: fingerprint}) // plain data: it always encodes
	old, err := r.client.SetArgs(ctx, redisKey(a), pending, redis.SetArgs{Mode: "NX", Get: true}).Bytes()
	if err != nil {
		return storedKey{}, false // redis.Nil: reserved now; any other: unreachable
	}
	var rec redisRecord
	if json.Unmarshal(old, &rec) != nil || rec.State != "done" || rec.TicketID == 0 {
		return storedKey{}, false
	}
	return storedKey{fingerprint: rec.Fingerprint, ticketID: rec.TicketID}, true
}

// complete marks the action's record done with the committed key row.
func (r *keyRedis) complete(ctx context.Context, a action, k storedKey) {
	b, _ := json.Marshal(redisRecord{State: "done", Fingerprint: k.fingerprint, TicketID: k.ticketID}) // plain data
	_ = r.client.Set(ctx, redisKey(a), b, 0).Err()                                                     // best effort: see createReserved
}
