package bench

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

func µs(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// BenchmarkSpread fires 16-call bursts at a handler that logs its entry
// and then waits on the database (SleepInDB), and reports, per way of
// releasing them, the median and p90 over bursts of the arrival spread;
// the ratios say how much tighter last-byte is than each naive way (P1).
func BenchmarkSpread(b *testing.B) { benchSpread(b, sleepInDB) }

// BenchmarkSpreadNoDB is BenchmarkSpread with a handler that waits in Go
// (SleepInGo).
func BenchmarkSpreadNoDB(b *testing.B) { benchSpread(b, sleepInGo) }

func benchSpread(b *testing.B, handle handler) {
	s, err := measureSpread(b.Context(), pgtest.NewDatabase(b, cluster), handle, b.N)
	if err != nil {
		b.Fatal(err)
	}
	for _, release := range releases {
		b.ReportMetric(µs(s.Median[release]), release+"-med-µs")
		b.ReportMetric(µs(s.P90[release]), release+"-p90-µs")
	}
	for _, base := range []string{keepAlive, naive} {
		med, p90 := s.Ratio(base)
		b.ReportMetric(med, base+"/lastbyte-med")
		b.ReportMetric(p90, base+"/lastbyte-p90")
	}
}

// BenchmarkSpreadRace reports per way of releasing 2-call same-key bursts,
// with no db-stall, the fraction that raced in a check-then-insert handler
// (MeasureRace).
func BenchmarkSpreadRace(b *testing.B) {
	frac, err := measureRace(b.Context(), pgtest.NewDatabase(b, cluster), b.N)
	if err != nil {
		b.Fatal(err)
	}
	for _, release := range releases {
		b.ReportMetric(frac[release], release+"-raced")
	}
}
