package stress_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// The reply to the first call is lost after its write committed; the
// client retries. With the same key the retry is answered the same ID and
// the action has one ticket and one outbox row; with a fresh key per
// attempt, as a client without idempotency keys would do, there are two
// tickets. Through the real fault proxy, sample service and PostgreSQL.
func TestLostReplyRetry(t *testing.T) {
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Faults = []model.Fault{model.FaultLoseReply}
	s, err := stress.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	for _, tc := range []struct {
		name     string
		retryKey string
		tickets  int
	}{
		{name: "same key", retryKey: "k1", tickets: 1},
		{name: "fresh key", retryKey: "k2", tickets: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := model.Namespace("lost-" + tc.retryKey + "-")
			plan := model.Plan{Steps: []model.Step{faulted("A", "k1", model.FaultLoseReply), call("A", tc.retryKey, 0)}}
			tr, err := s.Try(t.Context(), ns, plan, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.History.Faults) != 1 || !tr.History.Faults[0].Fired || tr.History.Faults[0].Kind != model.FaultLoseReply || len(tr.History.Faults[0].Ops) != 1 || tr.History.Faults[0].Ops[0] != 0 {
				t.Fatalf("fault events %+v, want one lose-reply that fired on call 0", tr.History.Faults)
			}
			lost, retry := tr.History.Ops[0], tr.History.Ops[1]
			if lost.Out.Kind != model.Unknown || lost.Call.Fault != model.FaultLoseReply {
				t.Errorf("first call: %s, want no answer with its fault on the call", lost)
			}
			if retry.Out.Kind != model.OK {
				t.Fatalf("retry: %s, want ok", retry)
			}
			tickets := ids(t, s, "tickets", ns)
			if len(tickets) != tc.tickets {
				t.Errorf("%d ticket(s) %v, want %d", len(tickets), tickets, tc.tickets)
			}
			if got := len(ids(t, s, "notification_outbox", ns)); got != tc.tickets {
				t.Errorf("%d outbox row(s), want %d", got, tc.tickets)
			}
			if tc.tickets == 1 && (len(tickets) != 1 || tickets[0] != retry.Out.ID) {
				t.Errorf("retry answered id %s, the ticket is %v", retry.Out.ID, tickets)
			}
			if len(tr.Violations) != 0 {
				t.Errorf("violations on a correct service: %v", tr.Violations)
			}
		})
	}
}

// ids lists the ids of a table's rows in namespace ns.
func ids(t *testing.T, s *stress.Session, table string, ns model.Namespace) []string {
	t.Helper()
	rows, err := s.DB().Query(t.Context(), "SELECT id::text FROM "+table+" WHERE starts_with(tenant, $1) ORDER BY id", string(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
