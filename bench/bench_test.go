// Package bench holds the benchmarks behind README.md's performance table.
// Every figure is a ratio against a baseline measured in the same run,
// interleaved with it, so a busy machine slows both alike.
//
//	go test -run '^$' -bench . -benchtime 200x ./bench/
package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/stress"
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

// plan is a typical small plan: a create, a retry, a changed payload, and
// another tenant on the same key.
var plan = model.Plan{Steps: []model.Step{
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}},
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Encoding: 1}}},
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: 1}}},
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "B", Key: "k1"}}},
}}

// BenchmarkPlanOverhead measures one plan through idemstress (execute,
// observe the rows in a read-only transaction, evaluate every check) against
// the same four requests sent with a bare net/http client and nothing
// checked. It reports the ratio: what proving a plan costs over just
// sending it.
func BenchmarkPlanOverhead(b *testing.B) {
	ctx := context.Background()
	svc, err := sample.Start(ctx, pgtest.NewDatabase(b, cluster), sample.Correct, ticketsvc.LayoutKeys)
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	cfg, err := svc.Config(1, 1)
	if err != nil {
		b.Fatal(err)
	}
	session, err := stress.Open(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	client := &http.Client{}
	t0 := time.Now()
	var raw, checked time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		for _, s := range plan.Steps {
			c := s.Calls[0]
			body := model.RenderPayload(cfg.Contract.Payload, c.Variant, c.Encoding)
			req, _ := http.NewRequest(http.MethodPost, svc.URL, bytes.NewReader(body))
			req.Header.Set("Idempotency-Key", fmt.Sprintf("raw-%d-%s", i, c.Key))
			req.Header.Set("X-Tenant", fmt.Sprintf("raw-%d-%s", i, c.Tenant))
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		raw += time.Since(start)

		start = time.Now()
		ns := model.Namespace(fmt.Sprintf("bench-%d-", i))
		tr, err := session.Try(ctx, ns, plan, t0)
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.Violations) > 0 {
			b.Fatalf("correct service flagged: %v", tr.Violations)
		}
		checked += time.Since(start)
	}
	b.ReportMetric(float64(raw.Microseconds())/float64(b.N), "raw-µs/plan")
	b.ReportMetric(float64(checked.Microseconds())/float64(b.N), "checked-µs/plan")
	b.ReportMetric(float64(checked)/float64(raw), "x-raw")
}
