package bench

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

// newDB gives each call a new database of the test cluster.
func newDB(tb testing.TB) NewDB {
	return func(context.Context) (string, error) { return pgtest.NewDatabase(tb, cluster), nil }
}

// rowsFromEnv reads a comma-separated list of row counts from $name, or
// returns def.
func rowsFromEnv(b *testing.B, name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			b.Fatalf("$%s: %v", name, err)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// p4: a run's cost must not grow with the database. BenchmarkP4 runs the
// same 200 plans (same seed) against the sample service over an empty
// database, then over databases holding 10^5 and 10^6 foreign rows in each
// effect table, then over an empty one again, in both schema layouts
// (MeasureP4). It reports each time and its ratio to the mean of the two
// empty runs. The goal is x-1e6 <= 1.5.
//
//	go test -run '^$' -bench 'P4$' -benchtime 1x -timeout 2h ./internal/testbed/bench/
//
// $IDEMSTRESS_BENCH_P4_ROWS (e.g. "1000,10000") changes the sizes for a
// quick look. peak-rss-MiB is this process's peak resident set during the
// run over the most rows, empty-peak-rss-MiB during the first empty run.
func BenchmarkP4(b *testing.B) {
	sizes := rowsFromEnv(b, "IDEMSTRESS_BENCH_P4_ROWS", []int{100_000, 1_000_000})
	for _, layout := range sample.Layouts() {
		b.Run(string(layout), func(b *testing.B) {
			for range b.N {
				p, err := measureP4(b.Context(), newDB(b), layout, sizes, 200, 4, b.Logf)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(p.Empty.Seconds(), "empty-s")
				for _, n := range sizes {
					b.ReportMetric(p.Times[n].Seconds(), rowsLabel(n)+"-s")
					b.ReportMetric(p.Ratio(n), "x-"+rowsLabel(n))
				}
				if rss := p.PeakRSS[sizes[len(sizes)-1]]; rss > 0 {
					b.ReportMetric(p.PeakRSS[0], "empty-peak-rss-MiB")
					b.ReportMetric(rss, "peak-rss-MiB")
				}
			}
		})
	}
}

// BenchmarkBaseline times the fingerprint of the rows outside a run
// (IDEM-009) on 10^7 foreign rows in each effect table
// ($IDEMSTRESS_BENCH_ROWS overrides the count): once before a run, and once
// after a run's worth of rows (800 per table) was written inside its
// namespace (MeasureBaseline). The goal is under 10 s each.
//
//	go test -run '^$' -bench 'Baseline$' -benchtime 1x -timeout 2h ./internal/testbed/bench/
func BenchmarkBaseline(b *testing.B) {
	rows := rowsFromEnv(b, "IDEMSTRESS_BENCH_ROWS", []int{10_000_000})[0]
	for _, layout := range sample.Layouts() {
		b.Run(string(layout), func(b *testing.B) {
			for range b.N {
				bl, err := measureBaseline(b.Context(), newDB(b), layout, rows, b.Logf)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(bl.Before.Seconds(), "before-s")
				b.ReportMetric(bl.After.Seconds(), "after-s")
				if bl.PeakRSS > 0 {
					b.ReportMetric(bl.PeakRSS, "peak-rss-MiB")
				}
			}
		})
	}
}
