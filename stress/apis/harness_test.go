package apis_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/stress"
)

// database makes a new database of the cluster, runs schema in it and
// returns a pool over it (the service's) and its URL.
func database(t *testing.T, schema string) (*pgxpool.Pool, string) {
	t.Helper()
	url := pgtest.NewDatabase(t, cluster)
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	// A connection for every call of the largest burst (16), as a service
	// sized for its traffic has: a call waiting for a connection is one
	// the db-stall nemesis cannot see waiting.
	pc.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(t.Context(), pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return pool, url
}

// serve serves h on a loopback port until the test ends and returns its
// base URL (http://127.0.0.1:port).
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return "http://" + ln.Addr().String()
}

// newFields are the contract fields issue 26 adds, which other branches
// bring: a contract that uses one loads only once they are merged.
var newFields = []string{"key_format", "key_pattern", "tenants", "tenant_format", "tenant_pattern", "changed_payload", "server_error", "refusals"}

// contract parses a contract with BASE replaced by the service's URL,
// pointed at its database, for plans plans from seed 7. A contract that
// names a field of issue 26 the parser does not know yet skips the test,
// saying which; any other error fails it.
func contract(t *testing.T, yaml, base, dbURL string, plans int) stress.Config {
	t.Helper()
	cfg, err := stress.Parse("contract.yaml", []byte(strings.ReplaceAll(yaml, "BASE", base)))
	if err != nil {
		var unknown []string
		for _, f := range newFields {
			if strings.Contains(err.Error(), fmt.Sprintf("unknown field %q", f)) {
				unknown = append(unknown, f)
			}
		}
		if unknown != nil {
			t.Skipf("the contract uses %s, which this branch's parser does not know yet (issue 26): %v", strings.Join(unknown, ", "), err)
		}
		t.Fatal(err)
	}
	cfg.DatabaseURL, cfg.Plans, cfg.Seed = dbURL, plans, 7
	return cfg
}

// run runs cfg and fails the test on an error of the run itself.
func run(t *testing.T, cfg stress.Config) *stress.Result {
	t.Helper()
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// assertPasses fails t unless the correct service passed with every
// planned fault fired, db-stall among them when the contract sets it.
func assertPasses(t *testing.T, cfg stress.Config, res *stress.Result) {
	t.Helper()
	if res.Verdict != checks.Pass {
		logFailures(t, res)
		t.Fatalf("correct service: verdict %s (%v); want a pass", res.Verdict, res.Err)
	}
	kinds := slices.Clone(cfg.Faults)
	if cfg.DBStall != "" {
		kinds = append(kinds, model.FaultDBStall)
	}
	assertAllFired(t, res, kinds)
}

// bugCase is a planted bug and how it must be reported: one row, of
// check want, with a minimal plan (skeleton) of minimal, or of steps steps
// when the plan cannot be written here (a refused call).
type bugCase struct {
	bug     string
	want    checks.ID
	minimal []model.Step
	steps   int
}

// assertCaught fails t unless the run reports the planted bug as exactly
// one row, of the expected check, minimal.
func assertCaught(t *testing.T, bc bugCase, res *stress.Result) {
	t.Helper()
	if res.Verdict != checks.Fail || len(res.Failures) == 0 {
		t.Fatalf("bug %s: verdict %s (%v); want it caught", bc.bug, res.Verdict, res.Err)
	}
	if len(res.Failures) != 1 {
		logFailures(t, res)
		t.Errorf("bug %s: %d rows %v; want one", bc.bug, len(res.Failures), checksOf(res))
	}
	f := res.Failures[0]
	if f.Check != bc.want {
		logFailures(t, res)
		t.Fatalf("bug %s: reported as %s; want %s", bc.bug, f.Check, bc.want)
	}
	if f.NotMinimal {
		t.Errorf("bug %s: plan not minimal:\n%s", bc.bug, f.Plan)
	}
	switch got := skeleton(f.Plan); {
	case bc.minimal != nil && got.String() != (model.Plan{Steps: bc.minimal}).String():
		t.Errorf("bug %s: minimal plan:\n%swant:\n%s", bc.bug, f.Plan, model.Plan{Steps: bc.minimal})
	case bc.minimal == nil && len(got.Steps) != bc.steps:
		t.Errorf("bug %s: minimal plan:\n%swant %d steps", bc.bug, f.Plan, bc.steps)
	}
}

func checksOf(res *stress.Result) []checks.ID {
	var ids []checks.ID
	for _, f := range res.Failures {
		ids = append(ids, f.Check)
	}
	return ids
}

// logFailures shows what a run found, for a test that did not want it.
func logFailures(t *testing.T, res *stress.Result) {
	t.Helper()
	for _, f := range res.Failures {
		var b bytes.Buffer
		for _, v := range f.Violations {
			fmt.Fprintf(&b, "\n  %s: %s", v.Message, v.Detail)
		}
		t.Logf("%s %s%s", f.Check, strings.TrimSpace(f.Plan.Compact()), b.String())
	}
}

// answer is a plain HTTP answer: its status and its JSON body.
type answer struct {
	status int
	body   map[string]any
	raw    string
}

// post sends one plain request and reads its answer.
func post(t *testing.T, url string, header map[string]string, body string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, raw: string(raw)}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		t.Fatalf("POST %s: answer %d is not a JSON object: %q", url, resp.StatusCode, raw)
	}
	return a
}

// at is the value at a JSON pointer of the answer's body, as text ("" for
// nothing there).
func (a answer) at(ptr string) string {
	v, _ := model.Pointer([]byte(a.raw), ptr)
	return v
}

// count is the number of rows query finds.
func count(t *testing.T, pool *pgxpool.Pool, query string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// plans is how many plans each run of a shape tries.
const plans = 100

// runShape runs a shape's contract against its correct service, which must
// pass with every fault fired, and against each planted bug, which must be
// caught as bc says. start serves the service in a mode ("" correct) and
// returns its base URL and database URL.
func runShape(t *testing.T, yaml string, start func(t *testing.T, bug string) (string, string), bugs []bugCase) {
	t.Helper()
	contract(t, yaml, "http://127.0.0.1:1", "", plans) // skips the whole test until its fields are there
	t.Run("correct", func(t *testing.T) {
		base, dbURL := start(t, "")
		cfg := contract(t, yaml, base, dbURL, plans)
		assertPasses(t, cfg, run(t, cfg))
	})
	for _, bc := range bugs {
		t.Run(bc.bug, func(t *testing.T) {
			if testing.Short() {
				t.Skip("a bug's run searches all its plans after the bug, a minute or more")
			}
			base, dbURL := start(t, bc.bug)
			cfg := contract(t, yaml, base, dbURL, plans)
			cfg.ShrinkTime = time.Minute
			assertCaught(t, bc, run(t, cfg))
		})
	}
}

// stepsOf is its arguments, a plan's steps.
func stepsOf(steps ...model.Step) []model.Step { return steps }
