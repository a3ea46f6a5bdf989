package bench

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
)

var cluster *pgtemp.Cluster

// childEnv, set, makes this test binary P6's child (RunChild) with the
// arguments it holds, separated by childSep.
const childEnv, childSep = "IDEMSTRESS_BENCH_CHILD", "\x1f"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(childEnv); ok {
		os.Exit(RunChild(context.Background(), strings.Split(args, childSep), os.Stdout, os.Stderr))
	}
	pgtest.Main(m, &cluster)
}

// BenchmarkP3 runs b.N rounds of 300 random plans through the tester
// against the correct sample service and sends the same requests from a
// plain keep-alive loop (MeasureThroughput), with 1 and 4 workers. x-plain
// is the median of tester calls/s ÷ plain calls/s; the goal at W=1 is 0.9.
//
//	go test -run '^$' -bench 'P3$' -benchtime 5x ./internal/testbed/bench/
//
// Under -cpuprofile, the label side (tester or plain) tells the two apart:
// go tool pprof -tagfocus side=tester -top.
func BenchmarkP3(b *testing.B) {
	for _, w := range []int{1, 4} {
		b.Run(workersName(w), func(b *testing.B) {
			tp, err := measureThroughput(b.Context(), pgtest.NewDatabase(b, cluster), 300, 3, w, b.N, b.Logf)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(median(tp.Tester), "tester-calls/s")
			b.ReportMetric(median(tp.Plain), "plain-calls/s")
			b.ReportMetric(tp.Median(), "x-plain")
		})
	}
}

func workersName(w int) string { return "W=" + strconv.Itoa(w) }
