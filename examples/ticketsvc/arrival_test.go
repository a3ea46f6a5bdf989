package ticketsvc_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// arrivals records Options.OnArrival calls. While hold is set, the next
// call signals entered and waits for proceed.
type arrivals struct {
	mu      sync.Mutex
	at      []time.Time
	hold    bool
	entered chan struct{}
	proceed chan struct{}
}

func (r *arrivals) record(at time.Time) {
	r.mu.Lock()
	r.at = append(r.at, at)
	hold := r.hold
	r.hold = false
	r.mu.Unlock()
	if hold {
		close(r.entered)
		<-r.proceed
	}
}

func (r *arrivals) times() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.at...)
}

// TestOnArrival checks that OnArrival is called before any database work,
// and once for every request, valid or not, with a monotonic time taken
// while the request was in flight.
func TestOnArrival(t *testing.T) {
	url := newDatabase(t)
	if err := ticketsvc.Migrate(t.Context(), connect(t, url), ticketsvc.LayoutKeys); err != nil {
		t.Fatal(err)
	}
	// The service's own pool, so its statistics are the service's alone.
	svcPool := connect(t, url)
	rec := &arrivals{hold: true, entered: make(chan struct{}), proceed: make(chan struct{})}
	e := serve(t, svcPool, ticketsvc.Options{OnArrival: rec.record})

	// Held in OnArrival, the first call must not have used the database.
	type result struct {
		a   answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := e.post(t.Context(), "A", "k", `{"subject":"x"}`)
		done <- result{a, err}
	}()
	select {
	case <-rec.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("OnArrival not called within 10s")
	}
	acquired := svcPool.Stat().AcquireCount()
	close(rec.proceed)
	first := <-done
	if first.err != nil || first.a.status != http.StatusCreated {
		t.Fatalf("first call: %+v, %v; want 201", first.a, first.err)
	}
	if acquired != 0 {
		t.Fatalf("the service acquired %d connections before OnArrival returned; want 0", acquired)
	}
	if svcPool.Stat().AcquireCount() == 0 {
		t.Fatal("the service never used its pool; the check above proves nothing")
	}

	calls := []struct {
		name, method, path, key, body string
		want                          int
	}{
		{"replay", "POST", "/tickets", "k", `{"subject":"x"}`, 200},
		{"changed payload", "POST", "/tickets", "k", `{"subject":"y"}`, 422},
		{"missing key", "POST", "/tickets", "", `{"subject":"x"}`, 400},
		{"not JSON", "POST", "/tickets", "k", `{`, 400},
		{"GET", "GET", "/tickets", "k", ``, 405},
		{"other path", "POST", "/other", "k", `{"subject":"x"}`, 404},
	}
	for i, c := range calls {
		req, err := http.NewRequestWithContext(t.Context(), c.method, e.url+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Tenant", "A")
		if c.key != "" {
			req.Header.Set("Idempotency-Key", c.key)
		}
		before := time.Now()
		a, err := e.do(req)
		after := time.Now()
		if err != nil || a.status != c.want {
			t.Fatalf("%s: got %+v, %v; want %d", c.name, a, err, c.want)
		}
		at := rec.times()
		if len(at) != i+2 {
			t.Fatalf("%s: %d arrivals after %d calls", c.name, len(at), i+2)
		}
		last := at[len(at)-1]
		if last.Before(before) || after.Before(last) {
			t.Errorf("%s: arrival at %v, not within the call (%v to %v)", c.name, last, before, after)
		}
		if !strings.Contains(last.String(), " m=") {
			t.Errorf("%s: arrival %v has no monotonic reading", c.name, last)
		}
	}

	// A burst: one arrival per call.
	const n = 16
	burst := make([]call, n)
	for i := range burst {
		burst[i] = call{"A", "burst", "x"}
	}
	before := len(rec.times())
	e.burst(burst)
	if got := len(rec.times()) - before; got != n {
		t.Fatalf("a burst of %d calls recorded %d arrivals", n, got)
	}
}
