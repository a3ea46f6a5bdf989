package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// minimalCalls is the size, in calls, of the smallest plan that shows each
// zoo bug in the keys layout (P5 divides by it). Each is the plan
// stress's TestSampleModes expects and the README's demo table shows:
//   - two sequential calls of one action, the second a plain retry
//     (outbox-on-retry), a changed payload (no-payload-check,
//     partial-fingerprint), a re-encoding (raw-body-fingerprint), a retry
//     with a tracing query parameter (query-in-key), or the same key from
//     another tenant (global-keys): one call alone is correct;
//   - a burst of two duplicates (check-then-insert, unique-violation-500,
//     process-mutex): a race needs two calls;
//   - one call with a trailing-space key (trimmed-keys): the keys layout
//     stores the trimmed key, which one call already shows;
//   - a call, a restart step and the same call again (memory-keys), or a
//     call crashed before its work was done, a restart and the retry
//     (stuck-in-flight): two calls, the restart is no call;
//   - a call crashed between its writes and the restart (non-atomic): the
//     partial effect is there without a retry.
var minimalCalls = map[string]int{
	"outbox-on-retry":       2,
	"no-payload-check":      2,
	"global-keys":           2,
	"raw-body-fingerprint":  2,
	"check-then-insert":     2,
	"unique-violation-500":  2,
	"process-mutex":         2,
	"partial-fingerprint":   2,
	"query-in-key":          2,
	"trimmed-keys":          1,
	"memory-keys":           2,
	"non-atomic":            1,
	"stuck-in-flight":       2,
	"hang-on-burst":         2, // a burst of two identical calls
	"stores-errors":         2, // the call the db-error fails, and its retry
	"complete-after-commit": 2, // the call crashed at its key record, and its retry after the restart
	"key-tx-first":          2, // the call crashed after its key's commit, and its retry after the restart
	"effects-tx-first":      2, // the call crashed after its effects' commit, and its retry after the restart
	"short-lease":           1, // the original held past the lease; the fault sends its retry
	"stores-refusals":       2, // the call refused for its payload, and the fixed call
	"exits-on-db-error":     1, // the call whose session the db-error ends: the replica exits
}

// zooRun is one run of the tester against one zoo bug with one seed, as
// the demo runs it: keys layout, last-byte release, db-stall on tickets.
type zooRun struct {
	Mode    string
	Seed    uint64
	Verdict checks.Verdict
	// Primary is the first check fired; Expected says it is the bug's.
	Primary  checks.ID
	Expected bool
	Plans    int           // random plans until the first failure
	Detect   time.Duration // time to the first failing plan
	Shrink   time.Duration // time spent shrinking
	Calls    int           // calls in the shrunk plan
	Flaky    bool
	Err      string
}

// Ratio is the shrunk plan's size ÷ the known minimal size (P5).
func (z zooRun) Ratio() float64 { return float64(z.Calls) / float64(minimalCalls[z.Mode]) }

// replay is what a fixed sequential replay found against one zoo bug.
type replay struct {
	Mode  string
	Tries int
	Found int // tries with any violation
	// Checks are the primary checks of the tries that found something.
	Checks []checks.ID
}

// replayPlan is the fixed sequential baseline P2 compares with: the same
// key twice, then a changed payload, then a new key, one call at a time,
// one tenant, plain keys, no noise, no bursts.
var replayPlan = model.Plan{Steps: []model.Step{
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}},
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1"}}},
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k1", Variant: 1}}},
	{Kind: model.StepCall, Calls: []model.Call{{Tenant: "A", Key: "k2"}}},
}}

// bugs are the sample service's bug modes (its correct designs left out,
// and those that keep their keys in a Redis, which run only as processes).
func bugs() []string {
	return slices.DeleteFunc(sample.Modes(), func(m string) bool { return sample.Passes(m) || sample.NeedsRedis(m) })
}

// measureZoo runs every zoo bug once per seed (plans random plans at most,
// shrinking for at most shrink), and the fixed replay tries times, each
// bug over a database of its own, atOnce bugs at a time (1 for figures
// that are each measured alone on the machine).
func measureZoo(ctx context.Context, newDB NewDB, seeds []uint64, plans, tries, atOnce int, shrink time.Duration, logf logf) ([]zooRun, []replay, error) {
	modes := bugs()
	bin := ""
	if slices.ContainsFunc(modes, sample.FaultsOnly) {
		// Only a restart or a crash shows these: the demo's run of the
		// real binary as processes, with the mode's faults.
		dir, err := os.MkdirTemp("", "idemstress-bench-")
		if err != nil {
			return nil, nil, err
		}
		defer os.RemoveAll(dir)
		if bin, err = sample.BuildBinary(dir); err != nil {
			return nil, nil, err
		}
	}
	runs := make([][]zooRun, len(modes))
	replays := make([]replay, len(modes))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(atOnce)
	for i, mode := range modes {
		g.Go(func() error {
			rs, rp, err := zooBug(gctx, newDB, bin, mode, seeds, plans, tries, shrink, logf)
			if err != nil {
				return fmt.Errorf("%s: %w", mode, err)
			}
			runs[i], replays[i] = rs, rp
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return slices.Concat(runs...), replays, nil
}

// zooBug serves one bug mode over a new database, in process or as
// processes of bin, and measures it (zooMode).
func zooBug(ctx context.Context, newDB NewDB, bin, mode string, seeds []uint64, plans, tries int, shrink time.Duration, logf logf) ([]zooRun, replay, error) {
	url, err := newDB(ctx)
	if err != nil {
		return nil, replay{}, err
	}
	if sample.FaultsOnly(mode) {
		cfg, err := sample.ProcessConfig([]string{bin}, url, mode, ticketsvc.LayoutKeys)
		if err != nil {
			return nil, replay{}, err
		}
		cfg.Plans = plans
		return zooMode(ctx, mode, cfg, seeds, tries, shrink, logf)
	}
	svc, err := sample.Start(ctx, url, mode, ticketsvc.LayoutKeys)
	if err != nil {
		return nil, replay{}, err
	}
	defer svc.Close()
	cfg, err := svc.Config(plans, 0)
	if err != nil {
		return nil, replay{}, err
	}
	return zooMode(ctx, mode, cfg, seeds, tries, shrink, logf)
}

func zooMode(ctx context.Context, mode string, cfg stress.Config, seeds []uint64, tries int, shrink time.Duration, logf logf) ([]zooRun, replay, error) {
	rp := replay{Mode: mode, Tries: tries}
	cfg.ShrinkTime, cfg.Sync, cfg.DBStall = shrink, client.LastByte, "tickets"
	session, err := stress.Open(ctx, cfg)
	if err != nil {
		return nil, rp, err
	}
	t0 := time.Now()
	for i := range tries {
		tr, err := session.Try(ctx, model.Namespace(fmt.Sprintf("replay%d-", i)), replayPlan, t0)
		if err != nil {
			session.Close()
			return nil, rp, err
		}
		if len(tr.Violations) > 0 {
			rp.Found++
			if id := tr.Violations[0].Check; !slices.Contains(rp.Checks, id) {
				rp.Checks = append(rp.Checks, id)
			}
		}
	}
	session.Close()
	logf("P2 %s: the fixed replay found it in %d of %d tries", mode, rp.Found, tries)

	var runs []zooRun
	// P2 and P5 measure a mode's first bug: its detection and its shrink.
	cfg.MaxBugs = 1
	for _, seed := range seeds {
		cfg.Seed = seed
		res, err := stress.Run(ctx, cfg)
		if err != nil {
			return nil, rp, err
		}
		z := zooRun{Mode: mode, Seed: seed, Verdict: res.Verdict, Plans: res.Plans, Detect: res.Detect, Flaky: res.Flaky}
		if res.Err != nil {
			z.Err = res.Err.Error()
		}
		if len(res.Failures) > 0 {
			f := res.Failures[0]
			z.Primary, z.Calls, z.Shrink = f.Check, f.Plan.NumCalls(), f.Shrink
			z.Expected = z.Primary == sample.Expected[mode]
		}
		logf("P2/P5 %s seed %d: %s after %d plans in %s (%s), shrunk to %d calls in %s", mode, seed, z.Verdict, z.Plans,
			z.Detect.Round(time.Millisecond), z.Primary, z.Calls, z.Shrink.Round(time.Millisecond))
		runs = append(runs, z)
	}
	return runs, rp, nil
}
