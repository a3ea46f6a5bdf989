package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/observe"
	"github.com/idemstress/idemstress/stress"
)

// P4: a run's cost must not grow with the database. BenchmarkP4 runs the
// same 200 plans (same seed) against the sample service over an empty
// database, then over databases holding 10^5 and 10^6 foreign rows in each
// effect table, then over an empty one again, in both schema layouts. It
// reports each time and its ratio to the mean of the two empty runs
// (x-1e5, x-1e6), measured in the same process. The goal is x-1e6 <= 1.5.
//
//	go test -run '^$' -bench 'P4$' -benchtime 1x -timeout 2h ./bench/
//
// peak-rss-MiB is the peak resident set of this process (idemstress and
// the in-process sample service, not PostgreSQL's processes) during the
// run over the most rows, empty-peak-rss-MiB during the first empty run: the high-water mark is reset before the run
// (/proc/self/clear_refs) and read after it (VmHWM).
func BenchmarkP4(b *testing.B) {
	const plans, seed = 200, 4
	sizes := []int{0, 100_000, 1_000_000}
	if s := os.Getenv("IDEMSTRESS_BENCH_P4_ROWS"); s != "" {
		// e.g. "1000,10000" for a quick look; the figures above need the default.
		sizes = []int{0}
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, layout := range sample.Layouts() {
		b.Run(string(layout), func(b *testing.B) {
			for range b.N {
				run := func(rows int) (time.Duration, float64) {
					svc := filledSample(b, layout, rows)
					defer svc.Close()
					cfg, err := svc.Config(plans, seed)
					if err != nil {
						b.Fatal(err)
					}
					resetPeakRSS()
					start := time.Now()
					res, err := stress.Run(context.Background(), cfg)
					d := time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					b.Logf("%s, %d foreign rows per effect table: %d plans in %.2fs, %s", layout, rows, res.Plans, d.Seconds(), res.Verdict)
					if res.Verdict != checks.Pass || res.Plans != plans {
						// The figures still stand: a run that cannot finish
						// its baseline in time is what this measures.
						b.Errorf("%d foreign rows: verdict %s after %d plans: %v %v", rows, res.Verdict, res.Plans, res.Err, res.Outside)
					}
					return d, peakRSSMiB()
				}
				empty1, rssEmpty := run(0)
				times := map[int]time.Duration{}
				var rss float64
				for _, n := range sizes[1:] {
					times[n], rss = run(n)
				}
				empty2, _ := run(0)
				empty := (empty1 + empty2) / 2
				b.ReportMetric(empty.Seconds(), "empty-s")
				for _, n := range sizes[1:] {
					b.ReportMetric(times[n].Seconds(), rowsLabel(n)+"-s")
					b.ReportMetric(float64(times[n])/float64(empty), "x-"+rowsLabel(n))
				}
				if rss > 0 {
					b.ReportMetric(rssEmpty, "empty-peak-rss-MiB")
					b.ReportMetric(rss, "peak-rss-MiB")
				}
			}
		})
	}
}

// rowsLabel names a row count: 1e5 for 100000, 1500 for 1500.
func rowsLabel(n int) string {
	e := 0
	for m := n; m >= 10 && m%10 == 0; m /= 10 {
		e++
	}
	if e < 2 {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%de%d", n/pow10(e), e)
}

func pow10(e int) int {
	p := 1
	for range e {
		p *= 10
	}
	return p
}

// BenchmarkBaseline times the fingerprint of the rows outside a run
// (IDEM-009) on 10^7 foreign rows in each effect table
// ($IDEMSTRESS_BENCH_ROWS overrides the count): once before a run, and once
// after a run's worth of rows (800 per table) was written inside its
// namespace. The goal is under 10 s each.
//
//	go test -run '^$' -bench 'Baseline$' -benchtime 1x -timeout 2h ./bench/
func BenchmarkBaseline(b *testing.B) {
	rows := 10_000_000
	if s := os.Getenv("IDEMSTRESS_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		rows = n
	}
	for _, layout := range sample.Layouts() {
		b.Run(string(layout), func(b *testing.B) {
			svc := filledSample(b, layout, rows)
			defer svc.Close()
			ctx := context.Background()
			o := observe.NewObserver(svc.Pool, svc.Contract.Effects)
			prefix := model.Namespace(fmt.Sprintf("isbench%d-", time.Now().UnixNano()))
			for range b.N {
				resetPeakRSS()
				start := time.Now()
				before, err := o.Baseline(ctx, prefix)
				if err != nil {
					b.Fatal(err)
				}
				beforeT := time.Since(start)
				writeInside(b, svc, layout, prefix, 800)
				start = time.Now()
				after, err := o.Baseline(ctx, prefix)
				if err != nil {
					b.Fatal(err)
				}
				afterT := time.Since(start)
				if vs := checks.Outside(before, after); len(vs) > 0 {
					b.Fatalf("rows inside the run counted outside: %v", vs)
				}
				b.Logf("%s, %d rows per effect table: baseline before %.2fs, after %.2fs: %v", layout, rows, beforeT.Seconds(), afterT.Seconds(), after)
				b.ReportMetric(beforeT.Seconds(), "before-s")
				b.ReportMetric(afterT.Seconds(), "after-s")
				if rss := peakRSSMiB(); rss > 0 {
					b.ReportMetric(rss, "peak-rss-MiB")
				}
			}
		})
	}
}

// filledSample starts the correct sample service over a new database whose
// effect tables hold rows foreign rows each (every outbox row points at a
// foreign ticket), vacuumed and analysed as a live database would be.
func filledSample(b testing.TB, layout ticketsvc.Layout, rows int) *sample.Service {
	b.Helper()
	ctx := context.Background()
	svc, err := sample.Start(ctx, pgtest.NewDatabase(b, cluster), sample.Correct, layout)
	if err != nil {
		b.Fatal(err)
	}
	if rows == 0 {
		return svc
	}
	start := time.Now()
	tickets := `INSERT INTO tickets (tenant, request_key, subject)
		SELECT 'acme-' || (g % 997), 'req-' || g, 'Printer offline #' || g FROM generate_series(1, $1::bigint) g`
	outbox := `INSERT INTO notification_outbox (tenant, request_key, ticket_id) SELECT tenant, request_key, id FROM tickets`
	if layout == ticketsvc.LayoutTagged {
		tickets = `INSERT INTO tickets (tenant, subject)
			SELECT 'acme-' || (g % 997), 'Printer offline [acme-' || (g % 997) || '.req-' || g || '.v0]' FROM generate_series(1, $1::bigint) g`
		outbox = `INSERT INTO notification_outbox (ticket_id) SELECT id FROM tickets`
	}
	for _, q := range []string{tickets, outbox} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, rows)
		}
		if _, err := svc.Pool.Exec(ctx, q, args...); err != nil {
			svc.Close()
			b.Fatal(err)
		}
	}
	if _, err := svc.Pool.Exec(ctx, "VACUUM ANALYZE tickets, notification_outbox"); err != nil {
		svc.Close()
		b.Fatal(err)
	}
	b.Logf("%s: %d foreign rows per effect table written in %.1fs", layout, rows, time.Since(start).Seconds())
	return svc
}

// writeInside writes n actions' rows in the namespace prefix, as a run
// would: through the service's own tables, not through its HTTP API (the
// baseline does not care who wrote them).
func writeInside(b testing.TB, svc *sample.Service, layout ticketsvc.Layout, prefix model.Namespace, n int) {
	b.Helper()
	q := `WITH t AS (INSERT INTO tickets (tenant, request_key, subject)
			SELECT $1 || g || '-A', $1 || g || '-k1', 'Printer offline' FROM generate_series(1, $2::int) g RETURNING id, tenant, request_key)
		INSERT INTO notification_outbox (tenant, request_key, ticket_id) SELECT tenant, request_key, id FROM t`
	if layout == ticketsvc.LayoutTagged {
		q = `WITH t AS (INSERT INTO tickets (tenant, subject)
				SELECT $1 || g || '-A', 'Printer offline [' || $1 || g || '-A.k1.v0]' FROM generate_series(1, $2::int) g RETURNING id)
			INSERT INTO notification_outbox (ticket_id) SELECT id FROM t`
	}
	if _, err := svc.Pool.Exec(context.Background(), q, string(prefix), n); err != nil {
		b.Fatal(err)
	}
}

// resetPeakRSS resets this process's peak resident set to its current one
// (Linux 4.0 and later); peakRSSMiB reads it back, 0 where it cannot.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func peakRSSMiB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				return 0
			}
			return float64(kb) / 1024
		}
	}
	return 0
}
