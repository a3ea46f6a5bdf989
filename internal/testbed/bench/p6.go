package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// P6's run shapes.
const (
	// shapeHTTP: the tester against the sample service (correct mode, keys
	// layout) over HTTP on loopback, served by the parent process: the
	// child holds the tester alone.
	shapeHTTP = "http"
	// shapeInProc: the tester against memTarget in the same process (no
	// HTTP, retries answered from memory, one row per action in
	// PostgreSQL, observed as usual): 10^6 calls in bounded time.
	shapeInProc = "inproc"
)

// callsPerPlan is how many calls the default world's plans make on
// average (measured: 9.7–10.1 over 300 and 2000 plans): a run of N calls
// is N/10 plans, and P6 reports the calls actually made.
const callsPerPlan = 10

// child starts this program again with args, so that P6's run has a
// process of its own whose peak resident set is the run's alone; the
// started program must call RunChild with them.
type child func(ctx context.Context, args []string) *exec.Cmd

// p6Run is one run of about Calls calls in a child process.
type p6Run struct {
	Shape   string
	Calls   int // calls made
	Plans   int
	Seconds float64
	Verdict checks.Verdict
	// MaxRSS is the child's peak resident set (getrusage ru_maxrss), MiB;
	// VmHWM the same read by the child from /proc/self/status at its end.
	MaxRSS, VmHWM float64
}

// childOut is what RunChild prints: one JSON line.
type childOut struct {
	Verdict checks.Verdict `json:"verdict"`
	Plans   int            `json:"plans"`
	Calls   int64          `json:"calls"`
	Seconds float64        `json:"seconds"`
	VmHWM   float64        `json:"vmhwm_mib"`
	Err     string         `json:"error,omitempty"`
}

// measureP6 runs about calls calls of the given shape (fixed seed) in a
// child process over a new database, and reads its peak resident set.
func measureP6(ctx context.Context, newDB NewDB, child child, shape string, calls int, logf logf) (p6Run, error) {
	run := p6Run{Shape: shape, Plans: max(1, calls/callsPerPlan)}
	url, err := newDB(ctx)
	if err != nil {
		return run, err
	}
	args := []string{"-shape", shape, "-plans", fmt.Sprint(run.Plans), "-db", url}
	var served atomic.Int64
	if shape == shapeHTTP {
		svc, err := sample.StartWrapped(ctx, url, sample.Correct, ticketsvc.LayoutKeys, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1); h.ServeHTTP(w, r) })
		})
		if err != nil {
			return run, err
		}
		defer svc.Close()
		args = append(args, "-url", svc.URL)
	}
	cmd := child(ctx, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	run.Seconds = time.Since(start).Seconds()
	if err != nil {
		return run, fmt.Errorf("P6 %s child: %w\n%s%s", shape, err, stdout.Bytes(), stderr.Bytes())
	}
	run.MaxRSS = childMaxRSSMiB(cmd.ProcessState)
	var out childOut
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &out); err != nil {
		return run, fmt.Errorf("P6 %s child: reading its result %q: %w", shape, stdout.Bytes(), err)
	}
	if out.Err != "" {
		return run, fmt.Errorf("P6 %s child: %s", shape, out.Err)
	}
	run.Verdict, run.VmHWM, run.Seconds = out.Verdict, out.VmHWM, out.Seconds
	run.Calls = int(out.Calls)
	if shape == shapeHTTP {
		run.Calls = int(served.Load())
	}
	logf("P6 %s: %d calls (%d plans) in %.1fs, %s, peak RSS %.1f MiB", shape, run.Calls, run.Plans, run.Seconds, run.Verdict, run.MaxRSS)
	if out.Verdict != checks.Pass {
		return run, fmt.Errorf("P6 %s: a correct target did not pass: %s", shape, out.Verdict)
	}
	return run, nil
}

// RunChild is P6's child: it runs the tester as args say and prints one
// JSON line (childOut) to stdout. It returns the process's exit code.
func RunChild(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("p6-child", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shape := fs.String("shape", shapeInProc, "run shape: http or inproc")
	plans := fs.Int("plans", 1000, "plans to run")
	db := fs.String("db", "", "database URL")
	url := fs.String("url", "", "the sample service's URL (shape http)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	out, err := runChild(ctx, *shape, *plans, *db, *url)
	if err != nil {
		out.Err = err.Error()
	}
	out.VmHWM = peakRSSMiB()
	_ = json.NewEncoder(stdout).Encode(out)
	if out.Err != "" {
		return 1
	}
	return 0
}

// runChild is the child's run: plans plans of the fixed seed against the
// sample service at url (shape http) or the in-process target over db
// (inproc). A run that finds a failure is no error: out.Err says what
// failed, and RunChild's exit code follows.
func runChild(ctx context.Context, shape string, plans int, db, url string) (childOut, error) {
	cfg, err := sample.Contract(ticketsvc.LayoutKeys)
	if err != nil {
		return childOut{}, err
	}
	cfg.Plans, cfg.Seed, cfg.DatabaseURL = plans, 6, db
	var mem *memTarget
	switch shape {
	case shapeHTTP:
		cfg.HTTP.URL = url
	case shapeInProc:
		pool, err := stress.Connect(ctx, db)
		if err != nil {
			return childOut{}, err
		}
		defer pool.Close()
		if _, err := pool.Exec(ctx, memTargetSchema); err != nil {
			return childOut{}, err
		}
		mem = &memTarget{pool: pool}
		cfg.Target, cfg.Effects, cfg.DB = mem, memTargetEffects, pool
	default:
		return childOut{}, fmt.Errorf("-shape %q: want http or inproc", shape)
	}
	start := time.Now()
	res, err := stress.Run(ctx, cfg)
	if err != nil {
		return childOut{}, err
	}
	out := childOut{Seconds: time.Since(start).Seconds(), Verdict: res.Verdict, Plans: res.Plans}
	if len(res.Failures) > 0 {
		out.Err = fmt.Sprintf("%s: %s", res.Failures[0].Check, res.Failures[0].Plan.Compact())
	} else if res.Err != nil {
		out.Err = res.Err.Error()
	}
	if mem != nil {
		out.Calls = mem.calls.Load()
	}
	return out, nil
}
