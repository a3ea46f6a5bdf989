package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
)

// Options say how to generate RESULTS.md.
type Options struct {
	// Quick takes few seeds and small sizes: a check that every section
	// can be produced, in a couple of minutes; its figures are not the
	// issue's.
	Quick bool
	// NewDB makes a new database for each measurement.
	NewDB NewDB
	// child starts this program again as P6's child (see RunChild).
	Child child
	// Log receives progress lines.
	Log logf
}

// sizes are how much each measurement does.
type sizes struct {
	SpreadBursts, RaceBursts int
	Seeds                    []uint64
	// ZooAtOnce is how many zoo bugs run at a time: 1 where each bug's
	// detection time is measured alone on the machine.
	ZooPlans, ReplayTries, ZooAtOnce int
	Shrink                           time.Duration
	P3Plans, P3Rounds                int
	P3Workers                        []int
	P4Rows                           []int
	P4Plans                          int
	BaselineRows                     int
	// BaselineLayouts are the layouts the baseline is measured in: filling
	// 10^7 rows takes minutes per layout.
	BaselineLayouts []ticketsvc.Layout
	P6              []p6Size
}

// p6Size is one P6 run: a shape and about how many calls.
type p6Size struct {
	Shape string
	Calls int
}

// sizesFor gives the full run's sizes, or the quick run's.
func sizesFor(quick bool) sizes {
	if quick {
		return sizes{
			// A quick run checks that every section is produced, and
			// judges nothing: each figure as small as still measures it
			// (a 1 s shrink still ends minimal for most bugs; a slow
			// plan's budget stretches to fit its candidates). The zoo's
			// bugs mostly wait (restarts, recoveries, call timeouts), and
			// their times are not judged: six run at once.
			SpreadBursts: 20, RaceBursts: 20,
			Seeds: []uint64{1}, ZooPlans: 100, ReplayTries: 1, ZooAtOnce: 6, Shrink: time.Second,
			P3Plans: 50, P3Rounds: 2, P3Workers: []int{1, 4},
			P4Rows: []int{10_000}, P4Plans: 25, BaselineRows: 10_000, BaselineLayouts: sample.Layouts(),
			P6: []p6Size{{shapeInProc, 2_000}, {shapeInProc, 6_000}, {shapeHTTP, 600}},
		}
	}
	return sizes{
		SpreadBursts: 200, RaceBursts: 200,
		Seeds: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, ZooPlans: 100, ReplayTries: 10, Shrink: 10 * time.Second, ZooAtOnce: 1,
		P3Plans: 300, P3Rounds: 5, P3Workers: []int{1, 4},
		P4Rows: []int{100_000, 1_000_000}, P4Plans: 200, BaselineRows: 10_000_000, BaselineLayouts: []ticketsvc.Layout{ticketsvc.LayoutKeys},
		P6: []p6Size{{shapeInProc, 100_000}, {shapeInProc, 1_000_000}, {shapeHTTP, 100_000}},
	}
}

// results are every figure of RESULTS.md.
type results struct {
	Quick   bool
	Sizes   sizes
	Machine Machine
	Elapsed time.Duration

	Spread, SpreadNoDB spread
	Race               map[string]float64
	Zoo                []zooRun
	Replays            []replay
	Throughput         []throughput
	P4                 []p4
	Baselines          []baseline
	P6                 []p6Run
}

// Machine is where and from what the figures come.
type Machine struct {
	CPU        string
	Cores      int
	RAMGiB     float64
	Date       time.Time
	Commit     string
	Go         string
	PostgreSQL string
	// LoadBefore and LoadAfter are /proc/loadavg's 1-minute figure.
	LoadBefore, LoadAfter string
}

// Generate takes every measurement, in the order of RESULTS.md.
func Generate(ctx context.Context, o Options) (*results, error) {
	start := time.Now()
	r := &results{Quick: o.Quick, Sizes: sizesFor(o.Quick)}
	var err error
	if r.Machine, err = machine(ctx, o.NewDB); err != nil {
		return nil, err
	}
	for _, part := range []struct {
		name    string
		measure func(context.Context, Options, *results) error
	}{
		{"P1 burst arrival spread", measureP1},
		{"P2/P5 zoo: time to detection, shrunk size, fixed replay", measureP2},
		{"P3 tester vs plain loop", measureP3},
		{"P4 foreign rows and baseline (IDEM-009)", measureP4s},
		{"P6 peak RSS", measureP6s},
	} {
		o.Log("%s (%.0fs so far)", part.name, time.Since(start).Seconds())
		if err := part.measure(ctx, o, r); err != nil {
			return nil, err
		}
	}
	r.Machine.LoadAfter = loadAvg()
	r.Elapsed = time.Since(start)
	o.Log("done (%.0fs so far)", time.Since(start).Seconds())
	return r, nil
}

// measureP1 measures burst arrival spread with the handler waiting in
// PostgreSQL and in Go, and the race-trigger fraction.
func measureP1(ctx context.Context, o Options, r *results) error {
	s := r.Sizes
	for _, m := range []struct {
		into   *spread
		handle handler
	}{{&r.Spread, sleepInDB}, {&r.SpreadNoDB, sleepInGo}} {
		url, err := o.NewDB(ctx)
		if err != nil {
			return err
		}
		if *m.into, err = measureSpread(ctx, url, m.handle, s.SpreadBursts); err != nil {
			return fmt.Errorf("P1: %w", err)
		}
	}
	url, err := o.NewDB(ctx)
	if err != nil {
		return err
	}
	if r.Race, err = measureRace(ctx, url, s.RaceBursts); err != nil {
		return fmt.Errorf("P1 race: %w", err)
	}
	return nil
}

// measureP2 runs the zoo: time to detection, shrunk sizes (P5), and the
// fixed replay.
func measureP2(ctx context.Context, o Options, r *results) error {
	s := r.Sizes
	var err error
	if r.Zoo, r.Replays, err = measureZoo(ctx, o.NewDB, s.Seeds, s.ZooPlans, s.ReplayTries, s.ZooAtOnce, s.Shrink, o.Log); err != nil {
		return fmt.Errorf("P2: %w", err)
	}
	return nil
}

// measureP3 measures the tester against a plain loop at each W.
func measureP3(ctx context.Context, o Options, r *results) error {
	s := r.Sizes
	for _, w := range s.P3Workers {
		url, err := o.NewDB(ctx)
		if err != nil {
			return err
		}
		tp, err := measureThroughput(ctx, url, s.P3Plans, 3, w, s.P3Rounds, o.Log)
		if err != nil {
			return fmt.Errorf("P3 W=%d: %w", w, err)
		}
		r.Throughput = append(r.Throughput, tp)
	}
	return nil
}

// measureP4s measures the cost of foreign rows in every layout, and the
// baseline's.
func measureP4s(ctx context.Context, o Options, r *results) error {
	s := r.Sizes
	for _, layout := range sample.Layouts() {
		p, err := measureP4(ctx, o.NewDB, layout, s.P4Rows, s.P4Plans, 4, o.Log)
		if err != nil {
			return err
		}
		r.P4 = append(r.P4, p)
	}
	for _, layout := range s.BaselineLayouts {
		bl, err := measureBaseline(ctx, o.NewDB, layout, s.BaselineRows, o.Log)
		if err != nil {
			return err
		}
		r.Baselines = append(r.Baselines, bl)
	}
	return nil
}

// measureP6s measures peak memory of each shape and size.
func measureP6s(ctx context.Context, o Options, r *results) error {
	for _, p := range r.Sizes.P6 {
		run, err := measureP6(ctx, o.NewDB, o.Child, p.Shape, p.Calls, o.Log)
		if err != nil {
			return err
		}
		r.P6 = append(r.P6, run)
	}
	return nil
}

func machine(ctx context.Context, newDB NewDB) (Machine, error) {
	m := Machine{Cores: runtime.NumCPU(), Date: time.Now().UTC(), Go: runtime.Version(), CPU: "unknown", LoadBefore: loadAvg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if kb, ok := procField("/proc/meminfo", "MemTotal:"); ok {
		m.RAMGiB = float64(kb) / (1 << 20)
	}
	m.Commit = "unknown (not a git checkout)"
	if out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			m.Commit += " (with uncommitted changes)"
		}
	}
	url, err := newDB(ctx)
	if err != nil {
		return m, err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return m, err
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&m.PostgreSQL); err != nil {
		return m, err
	}
	return m, nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}
