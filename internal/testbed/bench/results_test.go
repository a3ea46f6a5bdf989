package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/internal/testbed/sample"
)

// The quick run produces every section of RESULTS.md, a row for every zoo
// bug, and the P6 runs, through the same code as the full run.
func TestResultsQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("the quick results run takes about a minute")
	}
	child := func(ctx context.Context, args []string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0])
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, childSep))
		return cmd
	}
	res, err := Generate(t.Context(), Options{Quick: true, NewDB: newDB(t), Child: child, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, res); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	want := []string{"QUICK RUN", "`" + command + " -quick`", res.Machine.Commit, res.Machine.Go}
	for _, s := range sections {
		want = append(want, "\n## "+s+"\n")
	}
	for _, bug := range bugs() {
		want = append(want, "\n| "+bug+" | "+string(sample.Expected[bug])+" | ", "\n| "+bug+" | "+fmt.Sprint(minimalCalls[bug])+" | ")
	}
	for _, s := range []string{"| inproc | ", "| http | ", "| keys | ", "| tagged | ", "| lastbyte | ", "| naive | ", "| keepalive | "} {
		want = append(want, s)
	}
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("RESULTS.md lacks %q:\n%s", w, md)
		}
	}
	if res.Machine.CPU == "" || res.Machine.Cores < 1 || res.Machine.RAMGiB <= 0 || res.Machine.PostgreSQL == "" {
		t.Errorf("machine not described: %+v", res.Machine)
	}
	for _, run := range res.P6 {
		if run.MaxRSS <= 0 || run.Calls <= 0 {
			t.Errorf("P6 %s: no calls or no peak RSS: %+v", run.Shape, run)
		}
	}
	t.Logf("quick results in %s", res.Elapsed.Round(time.Second))
}

// Every zoo bug has a known minimal size, and nothing else does.
func TestMinimalCallsCoversTheZoo(t *testing.T) {
	for _, bug := range bugs() {
		if minimalCalls[bug] < 1 {
			t.Errorf("bug %s has no minimal size in MinimalCalls", bug)
		}
	}
	if len(minimalCalls) != len(bugs()) {
		t.Errorf("MinimalCalls has %d entries for %d bugs", len(minimalCalls), len(bugs()))
	}
}

// The plain loop of P3 sends what overlapped at the service together, and
// a plan's sequential calls one after another, each plan apart.
func TestStepsGroupsWhatOverlapped(t *testing.T) {
	t0 := time.Now()
	at := func(ns string, came, done int) recorded {
		return recorded{header: http.Header{"X-Tenant": {"is0123abcd-" + ns + "-A"}}, came: t0.Add(time.Duration(came)), done: t0.Add(time.Duration(done))}
	}
	got, err := steps([]recorded{at("1", 0, 10), at("2", 1, 5), at("1", 11, 20), at("1", 12, 25), at("1", 19, 22), at("1", 26, 30)})
	if err != nil {
		t.Fatal(err)
	}
	var shape []int
	for _, p := range got {
		for _, s := range p {
			shape = append(shape, len(s))
		}
		shape = append(shape, 0)
	}
	if want := []int{1, 3, 1, 0, 1, 0}; fmt.Sprint(shape) != fmt.Sprint(want) {
		t.Errorf("steps per plan %v, want %v (0 ends a plan)", shape, want)
	}
	if _, err := steps([]recorded{{header: http.Header{"X-Tenant": {"A"}}}}); err == nil {
		t.Error("a request without a run prefix was grouped")
	}
	if got := moved("is0123abcd-7-A", "r1"); got != "r10123abcd-7-A" {
		t.Errorf("moved: %q", got)
	}
}

// The file says which goals are missed and which bug was not caught,
// without a database: the rendering alone.
func TestMarkdownMarksMissedGoals(t *testing.T) {
	spread := spread{Bursts: 1, Median: map[string]time.Duration{keepAlive: 1000, naive: 1000, lastByte: 1000},
		P90: map[string]time.Duration{keepAlive: 1000, naive: 1000, lastByte: 1000}}
	r := &results{Sizes: sizesFor(true), Spread: spread, SpreadNoDB: spread, Race: map[string]float64{}}
	for _, bug := range bugs() {
		z := zooRun{Mode: bug, Seed: 1, Verdict: "fail", Primary: sample.Expected[bug], Expected: true, Plans: 1, Detect: time.Millisecond, Calls: minimalCalls[bug]}
		if bug == "global-keys" {
			z.Calls = 5
		}
		if bug == "process-mutex" {
			z = zooRun{Mode: bug, Seed: 1, Verdict: "inconclusive", Err: "did not fire"}
		}
		r.Zoo = append(r.Zoo, z)
		r.Replays = append(r.Replays, replay{Mode: bug, Tries: 1})
	}
	r.Throughput = []throughput{{Workers: 1, Tester: []float64{80}, Plain: []float64{100}}, {Workers: 4, Tester: []float64{160}, Plain: []float64{300}}}
	r.P6 = []p6Run{{Shape: shapeInProc, Calls: 10, MaxRSS: 20}, {Shape: shapeInProc, Calls: 100, MaxRSS: 30}}
	var b strings.Builder
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| P3: tester ÷ plain loop ≥ 0.9 at W = 1 | 0.80 | **missed** |",
		"2.00× (plain loop: 3.00×) | **missed** |",
		fmt.Sprintf("| P5: shrunk ÷ minimal = 1.0 for every bug on every seed | %d runs | **missed** |", len(bugs())),
		"| global-keys | 2 | 5 | 2.50 | 2.50 | 0 of 1 |",
		"| process-mutex | 2 | — | — | — | 0 of 1 |",
		"Not caught as expected: process-mutex seed 1: inconclusive  did not fire.",
		"| P6: peak RSS ≤ 200 MiB | 30.0 MiB | met |",
		"1.50× | **missed** |",
		"The fixed replay never finds: outbox-on-retry,",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md)
		}
	}
}
