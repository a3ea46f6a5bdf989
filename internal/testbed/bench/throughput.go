package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// throughput is P3: the tester's calls per second (plans executed,
// observed and judged) ÷ a plain keep-alive Go HTTP loop's calls per
// second, sending the very same requests to the same service.
type throughput struct {
	Workers int
	Plans   int
	// Calls is how many requests the service served per tester round.
	Calls int
	// Tester and Plain are the rounds' calls per second.
	Tester, Plain []float64
}

// Ratios are tester ÷ plain, per round.
func (t throughput) Ratios() []float64 {
	rs := make([]float64, len(t.Tester))
	for i := range rs {
		rs[i] = t.Tester[i] / t.Plain[i]
	}
	return rs
}

// Median is the median of the rounds' ratios.
func (t throughput) Median() float64 { return median(t.Ratios()) }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// recorded is a request the service served, as sent, and when it came
// and was answered.
type recorded struct {
	method, url string
	header      http.Header
	body        []byte
	came, done  time.Time
}

// recorder keeps every request the service serves while on.
type recorder struct {
	mu   sync.Mutex
	on   bool
	reqs []recorded
}

func (r *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		on := r.on
		r.mu.Unlock()
		if on {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			rec := recorded{method: req.Method, url: req.URL.RequestURI(), header: req.Header.Clone(), body: body, came: time.Now()}
			h.ServeHTTP(w, req)
			rec.done = time.Now()
			r.mu.Lock()
			r.reqs = append(r.reqs, rec)
			r.mu.Unlock()
			return
		}
		h.ServeHTTP(w, req)
	})
}

func (r *recorder) start() {
	r.mu.Lock()
	r.on, r.reqs = true, nil
	r.mu.Unlock()
}

func (r *recorder) stop() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.reqs
}

// runPrefix is what a run puts before every tenant and key it sends
// (stress.Run's "is" and eight hex digits).
var runPrefix = regexp.MustCompile(`is([0-9a-f]{8})-`)

// measureThroughput runs rounds rounds against the correct sample service
// (keys layout) over the database at dbURL. Each round runs plans random
// plans (seed) through stress.Run with workers workers, recording every
// request the service serves, then sends the same requests, moved to a
// namespace of their own so that each does the same work again, from a
// plain keep-alive loop of workers goroutines: each plan's calls in the
// order they came, on one goroutine, and the calls that overlapped at the
// service (a burst's) at once, one goroutine each.
func measureThroughput(ctx context.Context, dbURL string, plans int, seed uint64, workers, rounds int, logf logf) (throughput, error) {
	tp := throughput{Workers: workers, Plans: plans}
	rec := &recorder{}
	svc, err := sample.StartWrapped(ctx, dbURL, sample.Correct, ticketsvc.LayoutKeys, rec.wrap)
	if err != nil {
		return tp, err
	}
	defer svc.Close()
	cfg, err := svc.Config(plans, seed)
	if err != nil {
		return tp, err
	}
	cfg.Workers = workers
	// Enough idle connections for every call of a burst on every worker: a
	// plain client as a user would tune it.
	plain := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burstSize * workers}}
	defer plain.CloseIdleConnections()
	for round := range rounds {
		rec.start()
		var res *stress.Result
		start := time.Now()
		// The labels tell the two sides apart in a CPU profile:
		// go tool pprof -tagfocus side=tester (or side=plain).
		pprof.Do(ctx, pprof.Labels("side", "tester"), func(ctx context.Context) { res, err = stress.Run(ctx, cfg) })
		d := time.Since(start)
		reqs := rec.stop()
		if err != nil {
			return tp, err
		}
		if res.Verdict != checks.Pass {
			return tp, fmt.Errorf("P3: the correct service did not pass: %s %v", res.Verdict, res.Err)
		}
		var pd time.Duration
		pprof.Do(ctx, pprof.Labels("side", "plain"), func(ctx context.Context) {
			pd, err = sendPlain(ctx, plain, "http://"+svc.Addrs[0], reqs, workers, fmt.Sprintf("r%d", round%10))
		})
		if err != nil {
			return tp, err
		}
		tp.Calls = len(reqs)
		tp.Tester = append(tp.Tester, float64(len(reqs))/d.Seconds())
		tp.Plain = append(tp.Plain, float64(len(reqs))/pd.Seconds())
		logf("P3 W=%d round %d: %d calls, tester %.0f/s, plain loop %.0f/s, ratio %.2f", workers, round+1, len(reqs),
			tp.Tester[round], tp.Plain[round], tp.Tester[round]/tp.Plain[round])
	}
	return tp, nil
}

// sendPlain sends reqs to base from workers goroutines with the run
// prefix replaced by mark (same length), and returns the time it took.
func sendPlain(ctx context.Context, c *http.Client, base string, reqs []recorded, workers int, mark string) (time.Duration, error) {
	plans, err := steps(reqs)
	if err != nil {
		return 0, err
	}
	// Build every request before the clock starts, as the tester does.
	built, err := buildPlain(ctx, base, plans, mark)
	if err != nil {
		return 0, err
	}
	var next atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	start := time.Now()
	for range workers {
		g.Go(func() error {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(built) || ctx.Err() != nil {
					return ctx.Err()
				}
				if err := sendPlainPlan(c, built[i]); err != nil {
					return err
				}
			}
		})
	}
	err = g.Wait()
	return time.Since(start), err
}

// buildPlain builds the requests of every plan's steps, moved to mark.
func buildPlain(ctx context.Context, base string, plans [][][]recorded, mark string) ([][][]*http.Request, error) {
	built := make([][][]*http.Request, len(plans))
	for i, p := range plans {
		for _, step := range p {
			var calls []*http.Request
			for _, r := range step {
				req, err := http.NewRequestWithContext(ctx, r.method, base+moved(r.url, mark), bytes.NewReader(moved(r.body, mark)))
				if err != nil {
					return nil, err
				}
				for k, vs := range r.header {
					for _, v := range vs {
						req.Header.Add(k, moved(v, mark))
					}
				}
				calls = append(calls, req)
			}
			built[i] = append(built[i], calls)
		}
	}
	return built, nil
}

// sendPlainPlan sends one plan's steps in order, a step of several calls
// (a burst's) at once, one goroutine each.
func sendPlainPlan(c *http.Client, plan [][]*http.Request) error {
	send := func(req *http.Request) error {
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return fmt.Errorf("P3: plain loop: %s answered %d", req.URL, resp.StatusCode)
		}
		return nil
	}
	for _, step := range plan {
		if len(step) == 1 {
			if err := send(step[0]); err != nil {
				return err
			}
			continue
		}
		var burst errgroup.Group
		for _, req := range step {
			burst.Go(func() error { return send(req) })
		}
		if err := burst.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// steps groups reqs by plan (namespace), in the order the plans began, and
// each plan's requests into steps: a request that came before the current
// step's last answer overlapped it and joins it (a burst).
func steps(reqs []recorded) ([][][]recorded, error) {
	var plans [][][]recorded
	index := map[string]int{}
	sorted := slices.SortedStableFunc(slices.Values(reqs), func(a, b recorded) int { return a.came.Compare(b.came) })
	last := map[string]time.Time{} // the latest answer of each plan's current step
	for _, r := range sorted {
		ns := nsOf(r)
		if ns == "" {
			return nil, fmt.Errorf("P3: a request the tester sent carries no run prefix: %s %s %v", r.method, r.url, r.header)
		}
		i, ok := index[ns]
		if !ok {
			i = len(plans)
			index[ns] = i
			plans = append(plans, nil)
		}
		p := plans[i]
		if len(p) == 0 || !r.came.Before(last[ns]) {
			p = append(p, nil)
			last[ns] = r.done
		}
		p[len(p)-1] = append(p[len(p)-1], r)
		last[ns] = maxTime(last[ns], r.done)
		plans[i] = p
	}
	return plans, nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// nsOf is the run prefix and plan number a request was sent under.
func nsOf(r recorded) string {
	for _, vs := range r.header {
		for _, v := range vs {
			if loc := runPrefix.FindStringIndex(v); loc != nil {
				// The namespace goes up to the dash after the plan number.
				rest := v[loc[1]:]
				for j := 0; j < len(rest); j++ {
					if rest[j] == '-' {
						return v[loc[0] : loc[1]+j+1]
					}
				}
			}
		}
	}
	return ""
}

// moved replaces the run prefix "is" with mark (two characters).
func moved[T string | []byte](s T, mark string) T {
	switch v := any(s).(type) {
	case string:
		return T(runPrefix.ReplaceAllString(v, mark+"$1-"))
	default:
		return T(runPrefix.ReplaceAll(v.([]byte), []byte(mark+"$1-")))
	}
}
