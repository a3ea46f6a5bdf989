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
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
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

var releases = []string{keepAlive, naive, lastByte}

const burstSize = 16

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
func (l *entryLog) spread(tb testing.TB, want int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.at) != want {
		tb.Fatalf("%d handlers entered, want %d", len(l.at), want)
	}
	d := slices.Max(l.at) - slices.Min(l.at)
	l.at = l.at[:0]
	return d
}

// rig is an in-process HTTP server on loopback over a database, and a
// keep-alive client for it.
type rig struct {
	pool   *pgxpool.Pool
	srv    *httptest.Server
	client *http.Client
	log    *entryLog
}

// newRig runs schema in a new database, then serves handle, which runs
// after the handler's entry is logged.
func newRig(b *testing.B, schema string, handle func(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool)) *rig {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(b, cluster))
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = burstSize + 4
	cfg.MinConns = burstSize // handlers should wait on the database, not on dialling it
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if schema != "" {
		if _, err := pool.Exec(context.Background(), schema); err != nil {
			b.Fatal(err)
		}
	}
	r := &rig{pool: pool, log: &entryLog{t0: time.Now()}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.log.enter()
		_, _ = io.Copy(io.Discard, req.Body)
		handle(w, req, pool)
	}))
	b.Cleanup(r.srv.Close)
	r.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.Cleanup(r.client.CloseIdleConnections)
	// Warm up: the pool's connections, and the client's idle connections.
	for range 3 {
		r.fire(b, keepAlive, "warm", burstSize)
		r.log.spread(b, burstSize)
	}
	return r
}

// fire sends one burst of n calls for key, released the given way, and
// fails the benchmark unless all are answered 2xx.
func (r *rig) fire(b *testing.B, release, key string, n int) {
	reqs := make([]*http.Request, n)
	for i := range reqs {
		req, err := http.NewRequest(http.MethodPost, r.srv.URL+"/items?key="+key, strings.NewReader(fmt.Sprintf(`{"subject":"call %d"}`, i)))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		reqs[i] = req
	}
	if release != keepAlive {
		for i, e := range client.Release(context.Background(), reqs, client.ReleaseOptions{Mode: client.SyncMode(release)}) {
			if e.Err != nil || e.Resp.StatusCode/100 != 2 {
				b.Fatalf("%s burst, call %d: %v %s", release, i, e.Err, e.Body)
			}
		}
		return
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
		b.Fatalf("%s burst: %v", release, err)
	}
}

// quantile is the q-quantile of ds (nearest rank), which it sorts.
func quantile(ds []time.Duration, q float64) time.Duration {
	slices.Sort(ds)
	return ds[max(0, int(math.Ceil(q*float64(len(ds))))-1)]
}

func µs(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// BenchmarkSpread fires 16-call bursts at a handler that logs its entry
// and then waits on the database (pg_sleep 2ms, so the calls overlap there
// as they would on a real write), and reports, per way of releasing them,
// the median and p90 over bursts of the arrival spread: latest minus
// earliest handler entry within a burst. The three ways are interleaved,
// rotating which goes first, so a busy machine slows all alike; the ratios
// say how much tighter last-byte is than each naive way.
func BenchmarkSpread(b *testing.B) {
	benchSpread(b, func(w http.ResponseWriter, req *http.Request, pool *pgxpool.Pool) {
		if _, err := pool.Exec(req.Context(), `SELECT pg_sleep(0.002)`); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
}

// BenchmarkSpreadNoDB is BenchmarkSpread with a handler that waits 2ms in
// Go instead of in PostgreSQL: the difference is what the database's
// backends, woken by the first handlers, cost the later ones on a small
// machine.
func BenchmarkSpreadNoDB(b *testing.B) {
	benchSpread(b, func(w http.ResponseWriter, req *http.Request, pool *pgxpool.Pool) {
		time.Sleep(2 * time.Millisecond)
		w.WriteHeader(http.StatusCreated)
	})
}

func benchSpread(b *testing.B, handle func(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool)) {
	r := newRig(b, "", handle)
	spreads := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		for j := range releases {
			release := releases[(i+j)%len(releases)]
			r.fire(b, release, "k", burstSize)
			spreads[release] = append(spreads[release], r.log.spread(b, burstSize))
		}
	}
	b.StopTimer()
	med, p90 := map[string]time.Duration{}, map[string]time.Duration{}
	for _, release := range releases {
		med[release], p90[release] = quantile(spreads[release], 0.5), quantile(spreads[release], 0.9)
		b.ReportMetric(µs(med[release]), release+"-med-µs")
		b.ReportMetric(µs(p90[release]), release+"-p90-µs")
	}
	for _, base := range []string{keepAlive, naive} {
		b.ReportMetric(float64(med[base])/float64(med[lastByte]), base+"/lastbyte-med")
		b.ReportMetric(float64(p90[base])/float64(p90[lastByte]), base+"/lastbyte-p90")
	}
}

// BenchmarkSpreadRace fires 2-call same-key bursts, with no db-stall, at a
// check-then-insert handler (SELECT, then INSERT if absent, no constraint)
// and reports per way of releasing them the fraction of bursts that raced:
// left two rows for their key. Tighter release, more races found without
// help; the db-stall nemesis makes it 1 (see fault's tests).
func BenchmarkSpreadRace(b *testing.B) {
	schema := `CREATE TABLE items (key text NOT NULL); CREATE INDEX ON items (key)`
	r := newRig(b, schema, func(w http.ResponseWriter, req *http.Request, pool *pgxpool.Pool) {
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
	raced := map[string]int{}
	b.ResetTimer()
	for i := range b.N {
		for j := range releases {
			release := releases[(i+j)%len(releases)]
			key := fmt.Sprintf("%s-%d", release, i)
			r.fire(b, release, key, 2)
			r.log.spread(b, 2)
			var rows int
			if err := r.pool.QueryRow(context.Background(), `SELECT count(*) FROM items WHERE key = $1`, key).Scan(&rows); err != nil {
				b.Fatal(err)
			}
			if rows > 1 {
				raced[release]++
			}
		}
	}
	b.StopTimer()
	for _, release := range releases {
		b.ReportMetric(float64(raced[release])/float64(b.N), release+"-raced")
	}
}
