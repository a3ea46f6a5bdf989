package ticketsvc_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"golang.org/x/sync/errgroup"
)

// call is one planned POST /tickets.
type call struct {
	tenant, key, subject string
}

func (c call) body() string { return fmt.Sprintf(`{"subject":%q}`, c.subject) }

// burst sends all calls at once: each goroutine waits on a shared barrier.
func (e *env) burst(calls []call) []answer {
	e.t.Helper()
	start := make(chan struct{})
	g, ctx := errgroup.WithContext(e.t.Context())
	answers := make([]answer, len(calls))
	for i, c := range calls {
		g.Go(func() error {
			<-start
			a, err := e.post(ctx, c.tenant, c.key, c.body())
			answers[i] = a
			return err
		})
	}
	close(start)
	if err := g.Wait(); err != nil {
		e.t.Fatalf("burst: %v", err)
	}
	return answers
}

// checkBurst checks a burst of calls on fresh actions against the reference
// model: per action exactly one call creates (201); every other call replays
// the same id (200, same subject), conflicts (422, other subject) or finds
// the action in flight (409); and the action has exactly one ticket, with
// the winner's subject, and one outbox row. It returns the number of
// actions created and of 409s.
func checkBurst(t *testing.T, e *env, calls []call, answers []answer) (created, inFlight int) {
	t.Helper()
	type action struct{ tenant, key string }
	winner := map[action]int{} // index of the 201 call
	for i, a := range answers {
		if a.status == http.StatusCreated {
			act := action{calls[i].tenant, calls[i].key}
			if j, dup := winner[act]; dup {
				t.Fatalf("%v: two calls created: ids %d and %d", act, answers[j].id, a.id)
			}
			winner[act] = i
		}
	}
	ids := map[int64]action{}
	for i, a := range answers {
		c := calls[i]
		act := action{c.tenant, c.key}
		w, ok := winner[act]
		if !ok {
			t.Fatalf("%v: no call created; answers %v", act, answers)
		}
		want := calls[w]
		switch a.status {
		case http.StatusCreated:
			if other, seen := ids[a.id]; seen {
				t.Fatalf("%v: id %d also created for %v", act, a.id, other)
			}
			ids[a.id] = act
		case http.StatusOK:
			if a.id != answers[w].id || c.subject != want.subject {
				t.Fatalf("%v: call %+v answered 200 id %d; winner %+v has id %d", act, c, a.id, want, answers[w].id)
			}
		case http.StatusUnprocessableEntity:
			if c.subject == want.subject {
				t.Fatalf("%v: call %+v answered 422 though the winner has the same payload", act, c)
			}
		case http.StatusConflict:
			inFlight++
		default:
			t.Fatalf("%v: call %+v answered %d %s", act, c, a.status, a.body)
		}
	}
	for act, w := range winner {
		checkOneEffect(t, fmt.Sprint(act), e.effectsOf(act.tenant, act.key), answers[w].id, calls[w].subject)
	}
	return len(winner), inFlight
}

// TestConcurrentDuplicates fires bursts of 16 simultaneous calls per round:
// the correct mode must never duplicate, never leak across tenants and never
// answer 500.
func TestConcurrentDuplicates(t *testing.T) { forEachLayout(t, testConcurrentDuplicates) }

func testConcurrentDuplicates(t *testing.T, layout ticketsvc.Layout) {
	const rounds, callers = 20, 16
	tests := []struct {
		name string
		call func(round, i int) call
	}{
		{"same payload", func(round, i int) call {
			return call{"A", fmt.Sprintf("burst-%d", round), "Printer offline"}
		}},
		{"two payloads", func(round, i int) call {
			return call{"A", fmt.Sprintf("burst-%d", round), fmt.Sprintf("variant %d", i%2)}
		}},
		{"four tenants", func(round, i int) call {
			return call{fmt.Sprintf("T%d", i%4), fmt.Sprintf("burst-%d", round), "Printer offline"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, layout, "")
			created, inFlight := 0, 0
			for round := range rounds {
				calls := make([]call, callers)
				for i := range calls {
					calls[i] = tt.call(round, i)
				}
				c, f := checkBurst(t, e, calls, e.burst(calls))
				created, inFlight = created+c, inFlight+f
				// Nothing outside the round's actions was written.
				if tk, ob, ks := e.counts(); tk != created || ob != created || ks != created {
					t.Fatalf("round %d: %d tickets, %d outbox rows, %d keys in total; want %d of each",
						round, tk, ob, ks, created)
				}
			}
			t.Logf("%d of %d calls answered 409", inFlight, rounds*callers)
		})
	}
}
