package ticketsvc_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// stall holds tickets locked IN EXCLUSIVE MODE from the test's own
// connection: reads pass, every write waits until the stall is released.
// Two calls of one action that both get past their lookup then both wait
// at their first insert, so a check-then-insert race is no longer luck.
type stall struct {
	t  *testing.T
	tx pgx.Tx
}

func stallTickets(t *testing.T, pool *pgxpool.Pool) *stall {
	t.Helper()
	return &stall{t: t, tx: lockTable(t, pool, "tickets")}
}

// waiting returns how many sessions wait for a lock on tickets.
func (s *stall) waiting() int {
	s.t.Helper()
	var n int
	err := s.tx.QueryRow(s.t.Context(), `SELECT count(*) FROM pg_locks
		WHERE locktype = 'relation' AND NOT granted AND relation = 'tickets'::regclass
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n)
	if err != nil {
		s.t.Fatalf("read pg_locks: %v", err)
	}
	return n
}

// release ends the stall; releasing again does nothing.
func (s *stall) release() {
	// Not the test's context: release also runs in cleanup, after it is
	// cancelled. Rollback of a finished transaction only reports that.
	_ = s.tx.Rollback(context.Background())
}

// racer is one call of a race and the service it is sent to.
type racer struct {
	e *env
	c call
}

// settleTimeout bounds how long a race waits for its calls to settle.
const settleTimeout = 10 * time.Second

// race sends the calls at once while tickets is stalled and waits until
// every call has settled: answered, waiting for the stall, or parked on a
// process mutex. Only then does it release the stall, so every call that
// reached its first insert did so before any of them could commit. It
// returns the answers in the order of calls.
func race(t *testing.T, calls []racer) []answer {
	t.Helper()
	s := stallTickets(t, calls[0].e.pool)
	var (
		answers  = make([]answer, len(calls))
		errs     = make([]error, len(calls))
		answered atomic.Int32
		start    = make(chan struct{})
		wg       sync.WaitGroup
	)
	for i, r := range calls {
		wg.Go(func() {
			<-start
			answers[i], errs[i] = r.e.post(t.Context(), r.c.tenant, r.c.key, r.c.body())
			answered.Add(1)
		})
	}
	close(start)
	var services []*ticketsvc.Service
	for _, r := range calls {
		if !slices.Contains(services, r.e.svc) {
			services = append(services, r.e.svc)
		}
	}
	parked := func() int {
		n := 0
		for _, svc := range services {
			n += ticketsvc.ProcessMutexWaiters(svc)
		}
		return n
	}
	deadline := time.Now().Add(settleTimeout)
	for {
		a, w, p := int(answered.Load()), s.waiting(), parked()
		if a+w+p == len(calls) {
			break
		}
		if time.Now().After(deadline) {
			s.release()
			wg.Wait()
			t.Fatalf("race of %d calls not settled within %v: %d answered, %d waiting for the stall, %d parked on a process mutex",
				len(calls), settleTimeout, a, w, p)
		}
		time.Sleep(2 * time.Millisecond)
	}
	s.release()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("race call %d %+v: %v", i, calls[i].c, err)
		}
	}
	return answers
}

// statuses returns the answers' statuses, sorted.
func statuses(answers []answer) []int {
	s := make([]int, len(answers))
	for i, a := range answers {
		s[i] = a.status
	}
	slices.Sort(s)
	return s
}

// TestStalledRace races two calls of one action, to one Service or one to
// each of two replicas over one database, ten times each, with the db-stall
// making the race deterministic: the correct mode never duplicates and
// never answers 500; each concurrency bug shows its mistake every time.
func TestStalledRace(t *testing.T) { forEachLayout(t, testStalledRace) }

func testStalledRace(t *testing.T, layout ticketsvc.Layout) {
	const tries = 10
	tests := []struct {
		bug      string
		replicas int   // 1: both calls to one Service; 2: one call to each
		want     []int // the two answers, sorted
		rows     int   // tickets, outbox rows and keys of the action
	}{
		// The loser finds the action locked while the winner waits.
		{"", 1, []int{201, 409}, 1},
		{"", 2, []int{201, 409}, 1},
		// Both pass the lookup, nothing stops either insert.
		{"check-then-insert", 1, []int{201, 201}, 2},
		{"check-then-insert", 2, []int{201, 201}, 2},
		// Both pass the lookup; the constraint stops the loser, with a 500.
		{"unique-violation-500", 1, []int{201, 500}, 1},
		{"unique-violation-500", 2, []int{201, 500}, 1},
		// In one process the loser waits for the winner, then replays it;
		// across two the mutexes know nothing of each other.
		{"process-mutex", 1, []int{200, 201}, 1},
		{"process-mutex", 2, []int{201, 201}, 2},
	}
	for _, tt := range tests {
		name := tt.bug
		if name == "" {
			name = "correct"
		}
		t.Run(fmt.Sprintf("%s/%d_replicas", name, tt.replicas), func(t *testing.T) {
			e := newEnv(t, layout, tt.bug)
			to := []*env{e, e}
			if tt.replicas == 2 {
				to[1] = e.replica()
			}
			for try := range tries {
				c := call{"A", fmt.Sprintf("race-%d", try), "x"}
				answers := race(t, []racer{{to[0], c}, {to[1], c}})
				if got := statuses(answers); !slices.Equal(got, tt.want) {
					t.Fatalf("try %d: answers %v, want statuses %v", try, answers, tt.want)
				}
				checkRaceEffects(t, e, c, answers, tt.rows)
			}
		})
	}
}

// checkRaceEffects asserts that the action of c has rows tickets, as many
// outbox rows each referencing one of them, and as many keys; that every
// 201 answered one of those tickets, each a different one; and that every
// 200 replayed a ticket a 201 answered.
func checkRaceEffects(t *testing.T, e *env, c call, answers []answer, rows int) {
	t.Helper()
	ef := e.effectsOf(c.tenant, c.key)
	keys := e.keyRows(c.tenant, c.key)
	var tickets []int64
	for _, tk := range ef.Tickets {
		if tk.Subject != c.subject {
			t.Fatalf("%+v: ticket %+v has the wrong subject", c, tk)
		}
		tickets = append(tickets, tk.ID)
	}
	if len(tickets) != rows || len(ef.Outbox) != rows || keys != rows {
		t.Fatalf("%+v: %d tickets, %d outbox rows, %d keys (%+v); want %d of each", c, len(tickets), len(ef.Outbox), keys, ef, rows)
	}
	for _, o := range ef.Outbox {
		if !slices.Contains(tickets, o.TicketID) {
			t.Fatalf("%+v: outbox row %+v references none of tickets %v", c, o, tickets)
		}
	}
	var created []int64
	for _, a := range answers {
		if a.status == http.StatusCreated {
			if !slices.Contains(tickets, a.id) || slices.Contains(created, a.id) {
				t.Fatalf("%+v: 201 with id %d; tickets %v, created before %v", c, a.id, tickets, created)
			}
			created = append(created, a.id)
		}
	}
	for _, a := range answers {
		if a.status == http.StatusOK && !slices.Contains(created, a.id) {
			t.Fatalf("%+v: 200 with id %d, but the 201s answered %v", c, a.id, created)
		}
	}
}
