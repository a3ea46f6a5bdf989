package ticketsvc_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// hookReceiver records the webhook events it is sent and refuses the
// first attempt of each ticket with a 500.
type hookReceiver struct {
	mu     sync.Mutex
	events []string // event IDs, accepted or not, in order
	tried  map[float64]bool
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var ev map[string]any
	_ = json.Unmarshal(body, &ev)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, ev["event_id"].(string))
	ticket := ev["ticket_id"].(float64)
	if !h.tried[ticket] {
		h.tried[ticket] = true
		w.WriteHeader(http.StatusInternalServerError)
	}
}

func (h *hookReceiver) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

// relayed serves the sample in mode with a webhook to a hookReceiver and
// runs its relay until the test ends.
func relayed(t *testing.T, bug string) (*env, *hookReceiver) {
	t.Helper()
	hooks := &hookReceiver{tried: map[float64]bool{}}
	srv := httptest.NewServer(hooks)
	t.Cleanup(srv.Close)
	e := newEnvWith(t, ticketsvc.Options{Layout: ticketsvc.LayoutKeys, Bug: bug, WebhookURL: srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.svc.Relay(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return e, hooks
}

// waitEvents waits until the receiver has seen n attempts, or a few seconds.
func waitEvents(t *testing.T, hooks *hookReceiver, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(hooks.seen()) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // and nothing more comes
	return hooks.seen()
}

// The relay announces a ticket after its commit, and tries a refused
// delivery again under the same event ID; a replay announces nothing.
func TestRelayDeliversOnceUnderOneEventID(t *testing.T) {
	e, hooks := relayed(t, "")
	first := e.mustPost("A", "k1", `{"subject":"s","priority":3,"channel":"email"}`)
	e.mustPost("A", "k1", `{"subject":"s","priority":3,"channel":"email"}`)
	got := waitEvents(t, hooks, 2)
	if len(got) != 2 || got[0] != got[1] {
		t.Errorf("attempts %q for ticket %d; want one refused and its retry, under one event ID", got, first.id)
	}
}

// new-event-id-on-retry's retry carries another ID; webhook-on-replay
// announces the replay as a new event.
func TestRelayWebhookBugs(t *testing.T) {
	for _, tc := range []struct {
		bug   string
		calls int
	}{{"new-event-id-on-retry", 1}, {"webhook-on-replay", 2}} {
		t.Run(tc.bug, func(t *testing.T) {
			e, hooks := relayed(t, tc.bug)
			for range tc.calls {
				e.mustPost("A", "k1", `{"subject":"s","priority":3,"channel":"email"}`)
			}
			got := waitEvents(t, hooks, tc.calls+1)
			ids := slices.Compact(slices.Sorted(slices.Values(got)))
			if len(ids) < 2 {
				t.Errorf("attempts %q: want a second event ID", got)
			}
		})
	}
}
