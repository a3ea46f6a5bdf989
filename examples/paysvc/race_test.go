package paysvc_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// stall holds payments locked IN EXCLUSIVE MODE from the test's own
// connection: reads pass, every write waits until the stall is released.
// Two calls of one key that both get past their lookup then both wait at
// their insert, so a check-then-insert race is no longer luck.
type stall struct {
	t    *testing.T
	tx   pgx.Tx
	pool *pgxpool.Pool
}

func stallPayments(e *env) *stall {
	e.t.Helper()
	tx, err := e.pool.Begin(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	s := &stall{t: e.t, tx: tx, pool: e.pool}
	e.t.Cleanup(s.release)
	if _, err := tx.Exec(e.t.Context(), `LOCK TABLE payments IN EXCLUSIVE MODE`); err != nil {
		e.t.Fatalf("stall payments: %v", err)
	}
	return s
}

// waiting returns how many other sessions of the database wait for a lock:
// on payments (the stall), or on a row another call holds (a key claimed
// and not yet committed); autovacuum, which may wait on the stall too, is
// not a call. It asks on a connection of its own, outside the
// stall's transaction, in which pg_stat_activity would stay as first read.
func (s *stall) waiting() int {
	s.t.Helper()
	var n int
	err := s.pool.QueryRow(s.t.Context(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock' AND backend_type = 'client backend'`).Scan(&n)
	if err != nil {
		s.t.Fatalf("read pg_stat_activity: %v", err)
	}
	return n
}

// release ends the stall; releasing again does nothing.
func (s *stall) release() {
	// Not the test's context: release also runs in cleanup, after it is
	// cancelled. Rollback of a finished transaction only reports that.
	_ = s.tx.Rollback(context.Background())
}

// settleTimeout bounds how long a race waits for its calls to settle.
const settleTimeout = 10 * time.Second

// race sends n calls of one request at once while payments is stalled, and
// waits until every call has answered or waits for a lock. Only then does
// it release the stall, so every call that reached its insert did so before
// any of them could commit; hold longer, and a call waiting for a key
// another call holds has waited that long. It returns the answers.
func race(e *env, n int, merchant, key string, hold time.Duration) []answer {
	e.t.Helper()
	s := stallPayments(e)
	var (
		answers  = make([]answer, n)
		errs     = make([]error, n)
		answered atomic.Int32
		wg       sync.WaitGroup
	)
	defer wg.Wait() // also when the test fails below
	defer s.release()
	for i := range n {
		wg.Go(func() {
			answers[i], errs[i] = e.pay(e.t.Context(), merchant, key, 1250, "race")
			answered.Add(1)
		})
	}
	deadline := time.Now().Add(settleTimeout)
	for int(answered.Load())+s.waiting() != n {
		if time.Now().After(deadline) {
			e.t.Fatalf("race not settled within %s: %d answered, %d waiting", settleTimeout, answered.Load(), s.waiting())
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(hold)
	s.release()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			e.t.Fatal(err)
		}
	}
	return answers
}

// burst sends n calls of one request at once, without a stall.
func burst(e *env, n int, merchant, key string) []answer {
	e.t.Helper()
	var (
		answers = make([]answer, n)
		errs    = make([]error, n)
		start   = make(chan struct{})
		wg      sync.WaitGroup
	)
	for i := range n {
		wg.Go(func() {
			<-start
			answers[i], errs[i] = e.pay(e.t.Context(), merchant, key, 1250, "burst")
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			e.t.Fatal(err)
		}
	}
	return answers
}

// oneCreated fails unless the answers are one payment, each a 200 of its ID
// (or a 409 IDEMPOTENCY_KEY_IN_USE, if inUse), and the key has one payment
// and one ledger entry.
func oneCreated(e *env, answers []answer, key string, inUse bool) {
	e.t.Helper()
	var ids []string
	for _, a := range answers {
		switch {
		case a.status == http.StatusOK:
			ids = append(ids, a.id)
		case inUse && a.status == http.StatusConflict && a.code == "IDEMPOTENCY_KEY_IN_USE":
		default:
			e.t.Fatalf("%s: answered %d %s", key, a.status, a.body)
		}
	}
	if slices.Sort(ids); len(ids) == 0 || ids[0] != ids[len(ids)-1] {
		e.t.Errorf("%s: answered payments %q, want one", key, ids)
	}
	e.wantRows("m1", key, 1, 1)
}

// In the correct mode a burst of one key makes one payment: the second
// claim waits for the first call's key row and then replays its payment.
func TestBurstMakesOnePayment(t *testing.T) {
	for _, keyHeader := range []string{"", "X-Request-Id"} {
		t.Run("key-header="+keyHeader, func(t *testing.T) {
			e := newEnv(t, paysvc.Options{KeyHeader: keyHeader, InUseAfter: settleTimeout})
			oneCreated(e, race(e, 2, "m1", "stalled", 0), "stalled", false)
			for i := range 20 {
				key := "k" + string(rune('a'+i))
				oneCreated(e, burst(e, 2, "m1", key), key, true)
			}
			oneCreated(e, burst(e, 8, "m1", "eight"), "eight", true)
		})
	}
}

// racy-insert's two calls both find no payment and both write one.
func TestRacyInsertDuplicatesUnderABurst(t *testing.T) {
	e := newEnv(t, paysvc.Options{Bug: "racy-insert"})
	answers := race(e, 2, "m1", "k1", 0)
	if answers[0].status != http.StatusOK || answers[1].status != http.StatusOK || answers[0].id == answers[1].id {
		t.Errorf("answered %d %s and %d %s, want two payments", answers[0].status, answers[0].body, answers[1].status, answers[1].body)
	}
	e.wantRows("m1", "k1", 2, 2)
}

// A call whose key another call still holds waits InUseAfter, then
// answers 409 IDEMPOTENCY_KEY_IN_USE and writes nothing; once the first has
// committed, a retry replays it. The first call, held at its payment by
// the stall, is not answered 409: its claim waits on no lock of payments
// (the key's reference to its payment is checked at commit).
func TestKeyInUse(t *testing.T) {
	const inUseAfter = 100 * time.Millisecond
	e := newEnv(t, paysvc.Options{InUseAfter: inUseAfter})
	answers := race(e, 2, "m1", "k1", 5*inUseAfter)
	slices.SortFunc(answers, func(a, b answer) int { return a.status - b.status })
	if answers[0].status != http.StatusOK || answers[1].status != http.StatusConflict || answers[1].code != "IDEMPOTENCY_KEY_IN_USE" {
		t.Fatalf("answered %d %s and %d %s, want 200 and 409 IDEMPOTENCY_KEY_IN_USE",
			answers[0].status, answers[0].body, answers[1].status, answers[1].body)
	}
	if a := e.mustPay("m1", "k1", 1250, "race"); a.body != answers[0].body {
		t.Errorf("retry answered %s, want %s", a.body, answers[0].body)
	}
	e.wantRows("m1", "k1", 1, 1)
}

// Two Services over one database (two processes of the service) still
// make one payment of a key.
func TestTwoServicesMakeOnePayment(t *testing.T) {
	e := newEnv(t, paysvc.Options{InUseAfter: settleTimeout})
	svc, err := paysvc.New(e.pool, e.opts)
	if err != nil {
		t.Fatal(err)
	}
	other := *e
	srv := httptestServer(t, svc)
	other.url = srv
	s := stallPayments(e)
	var (
		answers  [2]answer
		errs     [2]error
		answered atomic.Int32
		wg       sync.WaitGroup
	)
	for i, x := range []*env{e, &other} {
		wg.Go(func() {
			answers[i], errs[i] = x.pay(t.Context(), "m1", "k1", 1250, "")
			answered.Add(1)
		})
	}
	for deadline := time.Now().Add(settleTimeout); int(answered.Load())+s.waiting() != 2; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.release()
			wg.Wait()
			t.Fatal("race not settled")
		}
	}
	s.release()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	oneCreated(e, answers[:], "k1", false)
}

// The claim's lock_timeout is the claim's alone: the statements after it
// run under the session's own setting (PostgreSQL's default, none), so a
// call held at its payment longer than InUseAfter still creates it.
func TestClaimRestoresLockTimeout(t *testing.T) {
	const inUseAfter = 50 * time.Millisecond
	e := newEnv(t, paysvc.Options{InUseAfter: inUseAfter})
	answers := race(e, 1, "m1", "k1", 10*inUseAfter)
	if answers[0].status != http.StatusOK {
		t.Fatalf("a call held at its payment for %s answered %d %s, want 200", 10*inUseAfter, answers[0].status, answers[0].body)
	}
	e.wantRows("m1", "k1", 1, 1)
}
