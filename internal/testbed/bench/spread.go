package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/idemstress/idemstress/client"
)

// How a burst is released, in the order of the spread table.
const (
	// keepAlive is how a plain Go client fires a burst: one goroutine per
	// call behind a start barrier, each sending through an http.Client
	// whose keep-alive connections were warmed up beforehand.
	keepAlive = "keepalive"
	naive     = string(client.Naive)    // client.Release: same barrier, raw pre-dialled connections
	lastByte  = string(client.LastByte) // client.Release: last-byte synchronisation
)

// releases are the ways of releasing a burst that P1 compares.
var releases = []string{keepAlive, naive, lastByte}

// burstSize is P1's burst: the largest a plan draws.
const burstSize = 16

// handler is what a rig's handler does after its entry is logged.
type handler func(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool)

// sleepInDB waits on the database (pg_sleep 2ms), so that a burst's calls
// overlap there as they would on a real write.
func sleepInDB(w http.ResponseWriter, req *http.Request, pool *pgxpool.Pool) {
	if _, err := pool.Exec(req.Context(), `SELECT pg_sleep(0.002)`); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// sleepInGo waits 2ms in Go instead: the difference to SleepInDB is what
// the database's backends, woken by the first handlers, cost the later
// ones on a small machine.
func sleepInGo(w http.ResponseWriter, _ *http.Request, _ *pgxpool.Pool) {
	time.Sleep(2 * time.Millisecond)
	w.WriteHeader(http.StatusCreated)
}

// entryLog records when each handler of the current burst was entered, on
// the monotonic clock.
type entryLog struct {
	t0 time.Time
	mu sync.Mutex
	at []time.Duration
}

func (l *entryLog) enter() {
	d := time.Since(l.t0)
	l.mu.Lock()
	l.at = append(l.at, d)
	l.mu.Unlock()
}

// spread is max-min of the entries since the last call, which it clears.
func (l *entryLog) spread(want int) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.at) != want {
		return 0, fmt.Errorf("%d handlers entered, want %d", len(l.at), want)
	}
	d := slices.Max(l.at) - slices.Min(l.at)
	l.at = l.at[:0]
	return d, nil
}

// rig is an in-process HTTP server on loopback over a database, and a
// keep-alive client for it.
type rig struct {
	pool   *pgxpool.Pool
	srv    *httptest.Server
	client *http.Client
	log    *entryLog
}

// newRig runs schema in the database at dbURL, then serves handle, which
// runs after the handler's entry is logged. Close releases it.
func newRig(ctx context.Context, dbURL, schema string, handle handler) (_ *rig, err error) {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = burstSize + 4
	cfg.MinConns = burstSize // handlers should wait on the database, not on dialling it
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r := &rig{pool: pool, log: &entryLog{t0: time.Now()}}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if schema != "" {
		if _, err := pool.Exec(ctx, schema); err != nil {
			return nil, err
		}
	}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.log.enter()
		_, _ = io.Copy(io.Discard, req.Body)
		handle(w, req, pool)
	}))
	r.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	// Warm up: the pool's connections, and the client's idle connections.
	for range 3 {
		if err := r.fire(ctx, keepAlive, "warm", burstSize); err != nil {
			return nil, err
		}
		if _, err := r.log.spread(burstSize); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *rig) close() {
	if r.client != nil {
		r.client.CloseIdleConnections()
	}
	if r.srv != nil {
		r.srv.Close()
	}
	r.pool.Close()
}

// fire sends one burst of n calls for key, released the given way, and
// fails unless all are answered 2xx.
func (r *rig) fire(ctx context.Context, release, key string, n int) error {
	reqs := make([]*http.Request, n)
	for i := range reqs {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.srv.URL+"/items?key="+key, strings.NewReader(fmt.Sprintf(`{"subject":"call %d"}`, i)))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		reqs[i] = req
	}
	if release != keepAlive {
		for i, e := range client.Release(ctx, reqs, client.ReleaseOptions{Mode: client.SyncMode(release)}) {
			if e.Err != nil || e.Resp.StatusCode/100 != 2 {
				return fmt.Errorf("%s burst, call %d: %v %s", release, i, e.Err, e.Body)
			}
		}
		return nil
	}
	start := make(chan struct{})
	var g errgroup.Group
	for _, req := range reqs {
		g.Go(func() error {
			<-start
			resp, err := r.client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
			if resp.StatusCode/100 != 2 {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		})
	}
	close(start)
	if err := g.Wait(); err != nil {
		return fmt.Errorf("%s burst: %w", release, err)
	}
	return nil
}

// quantile is the q-quantile of ds (nearest rank), which it sorts.
func quantile(ds []time.Duration, q float64) time.Duration {
	slices.Sort(ds)
	return ds[max(0, int(math.Ceil(q*float64(len(ds))))-1)]
}

// spread is the arrival spread of BurstSize-call bursts (latest minus
// earliest handler entry within a burst), per way of releasing them.
type spread struct {
	Bursts      int
	Median, P90 map[string]time.Duration
}

// Ratio is how much tighter last-byte release is than base.
func (s spread) Ratio(base string) (med, p90 float64) {
	return float64(s.Median[base]) / float64(s.Median[lastByte]), float64(s.P90[base]) / float64(s.P90[lastByte])
}

// measureSpread fires bursts BurstSize-call bursts per way of releasing
// them at a handler that logs its entry and then runs handle, over the
// database at dbURL. The ways are interleaved, rotating which goes first,
// so a busy machine slows all alike.
func measureSpread(ctx context.Context, dbURL string, handle handler, bursts int) (spread, error) {
	r, err := newRig(ctx, dbURL, "", handle)
	if err != nil {
		return spread{}, err
	}
	defer r.close()
	spreads := map[string][]time.Duration{}
	for i := range bursts {
		for j := range releases {
			release := releases[(i+j)%len(releases)]
			if err := r.fire(ctx, release, "k", burstSize); err != nil {
				return spread{}, err
			}
			d, err := r.log.spread(burstSize)
			if err != nil {
				return spread{}, err
			}
			spreads[release] = append(spreads[release], d)
		}
	}
	s := spread{Bursts: bursts, Median: map[string]time.Duration{}, P90: map[string]time.Duration{}}
	for _, release := range releases {
		s.Median[release], s.P90[release] = quantile(spreads[release], 0.5), quantile(spreads[release], 0.9)
	}
	return s, nil
}

// measureRace fires bursts 2-call same-key bursts per way of releasing
// them, with no db-stall, at a check-then-insert handler (SELECT, then
// INSERT if absent, no constraint), and returns per way the fraction of
// bursts that raced: left two rows for their key. Tighter release, more
// races found without help; the db-stall nemesis makes it 1 (see fault's
// tests).
func measureRace(ctx context.Context, dbURL string, bursts int) (map[string]float64, error) {
	schema := `CREATE TABLE items (key text NOT NULL); CREATE INDEX ON items (key)`
	r, err := newRig(ctx, dbURL, schema, func(w http.ResponseWriter, req *http.Request, pool *pgxpool.Pool) {
		key := req.URL.Query().Get("key")
		var n int
		if err := pool.QueryRow(req.Context(), `SELECT count(*) FROM items WHERE key = $1`, key).Scan(&n); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if n == 0 {
			if _, err := pool.Exec(req.Context(), `INSERT INTO items (key) VALUES ($1)`, key); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.WriteHeader(http.StatusCreated)
	})
	if err != nil {
		return nil, err
	}
	defer r.close()
	raced := map[string]int{}
	for i := range bursts {
		for j := range releases {
			release := releases[(i+j)%len(releases)]
			key := fmt.Sprintf("%s-%d", release, i)
			if err := r.fire(ctx, release, key, 2); err != nil {
				return nil, err
			}
			if _, err := r.log.spread(2); err != nil {
				return nil, err
			}
			var rows int
			if err := r.pool.QueryRow(ctx, `SELECT count(*) FROM items WHERE key = $1`, key).Scan(&rows); err != nil {
				return nil, err
			}
			if rows > 1 {
				raced[release]++
			}
		}
	}
	frac := map[string]float64{}
	for _, release := range releases {
		frac[release] = float64(raced[release]) / float64(bursts)
	}
	return frac, nil
}
