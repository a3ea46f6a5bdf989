package paysvc

import (
	"context"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	keyInUse = &apiError{http.StatusConflict, errorEntry{Category: "INVALID_REQUEST_ERROR", Code: "IDEMPOTENCY_KEY_IN_USE",
		Detail: "another request with this idempotency key is still being processed; retry later with the same key"}}
	keyReused = &apiError{http.StatusBadRequest, errorEntry{Category: "INVALID_REQUEST_ERROR", Code: "IDEMPOTENCY_KEY_REUSED",
		Detail: "this idempotency key was already used with a different request; use a new key for a new payment"}}
)

// create runs a create call in one transaction and returns the payment to
// answer with, or the error answer, or the error that makes it a 500. Any
// error rolls everything back.
func (s *Service) create(ctx context.Context, req createRequest) (payment, *apiError, error) {
	var (
		out  payment
		herr *apiError
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if s.b.racyInsert {
			out, herr, err = s.createRacy(ctx, tx, req)
		} else {
			out, herr, err = s.createClaimed(ctx, tx, req)
		}
		return err
	})
	if isLockTimeout(err) {
		// The claim waited InUseAfter for another call of the key, which
		// is still running.
		return payment{}, keyInUse, nil
	}
	if err != nil {
		return payment{}, nil, err
	}
	return out, herr, nil
}

// createClaimed is the correct design: claim the key first, by inserting
// its row with ON CONFLICT DO NOTHING. While another call of the key holds
// its uncommitted row, the insert waits on that row's lock (at most
// InUseAfter, then 409); once the other call has committed, the insert does
// nothing and the call replays what it wrote, and had it rolled back, the
// insert claims the key. Only the call holding the claim writes, so a key
// names one payment, across any number of processes; the key's primary key
// makes it so.
func (s *Service) createClaimed(ctx context.Context, tx pgx.Tx, req createRequest) (payment, *apiError, error) {
	if s.b.merchantLeak {
		// The mistake: the key looked up by the key alone.
		p, found, err := findPayment(ctx, tx, claimedPaymentAnyMerchant, req.key)
		if err != nil || found {
			return s.replay(ctx, tx, req, p, err)
		}
	}
	claimed, err := claimKey(ctx, tx, req, s.inUseAfter)
	if err != nil {
		return payment{}, nil, err
	}
	if !claimed {
		// The claim's statement waited for the other call to end; under
		// READ COMMITTED this next statement sees what it committed.
		p, found, err := findPayment(ctx, tx, claimedPayment, req.merchant, req.key)
		if err == nil && !found {
			// Unreachable: a key row is committed with its payment.
			return payment{}, keyInUse, nil
		}
		return s.replay(ctx, tx, req, p, err)
	}
	p, err := s.write(ctx, tx, req)
	if err != nil {
		return payment{}, nil, err
	}
	return p, nil, setKeyPayment(ctx, tx, req, p.rowID)
}

// createRacy is the racy-insert mistake: look the payment up, then insert
// it, with nothing between the two. Two concurrent calls of one key both
// find nothing and both write.
func (s *Service) createRacy(ctx context.Context, tx pgx.Tx, req createRequest) (payment, *apiError, error) {
	var (
		p     payment
		found bool
		err   error
	)
	if s.b.merchantLeak {
		p, found, err = findPayment(ctx, tx, storedPaymentAnyMerchant, req.key)
	} else {
		p, found, err = findPayment(ctx, tx, storedPayment, req.merchant, req.key)
	}
	if err != nil || found {
		return s.replay(ctx, tx, req, p, err)
	}
	p, err = s.write(ctx, tx, req)
	return p, nil, err
}

// write inserts the payment and its ledger entry.
func (s *Service) write(ctx context.Context, tx pgx.Tx, req createRequest) (payment, error) {
	p, err := insertPayment(ctx, tx, req)
	if err != nil {
		return payment{}, err
	}
	return p, insertLedger(ctx, tx, p)
}

// replay answers a call whose key names the stored payment p (unless err):
// the same payment if the call's request is the one that created it, else
// IDEMPOTENCY_KEY_REUSED. It writes nothing, but under ledger-on-retry.
func (s *Service) replay(ctx context.Context, tx pgx.Tx, req createRequest, p payment, err error) (payment, *apiError, error) {
	if err != nil {
		return payment{}, nil, err
	}
	if p.fingerprint != req.fingerprint && !s.b.replayChanged {
		return payment{}, keyReused, nil
	}
	if s.b.ledgerOnRetry {
		if err := insertLedger(ctx, tx, p); err != nil {
			return payment{}, nil, err
		}
	}
	return p, nil, nil
}

// isLockTimeout reports whether err is PostgreSQL's lock_not_available,
// which lock_timeout raises.
func isLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}
