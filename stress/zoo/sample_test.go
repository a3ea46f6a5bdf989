package zoo_test

import (
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// Through the real stack (HTTP on loopback, PostgreSQL), on both schema
// layouts, with bursts released by last-byte synchronisation under the
// db-stall nemesis, every bug mode is caught by its check and shrunk to the
// two calls that show it, and the correct mode passes. Each layout runs a
// seed of its own (keys 1, tagged 2), so every bug is found and shrunk from
// two different searches; stress/bugrows runs every bug again (keys, seed
// 1), TestStableDiagnoses pins several more seeds for the two bugs whose
// shrink once wandered, and internal/testbed/bench's P2 and P5 run ten seeds each.
// The modes are independent (a database and a service each), so they run
// in parallel: shrinking is CPU, but the races and hangs wait.
func TestSampleModes(t *testing.T) {
	t.Parallel()
	reencoded := call("A", "k1", 0)
	reencoded.Calls[0].Encoding = 1
	traced := call("A", "k1", 0)
	traced.Calls[0].Noise = model.NoiseQuery
	refused := call("A", "k1", 0)
	refused.Calls[0].Broken = 1
	minimal := map[string][]model.Step{
		"outbox-on-retry":      {call("A", "k1", 0), call("A", "k1", 0)},
		"no-payload-check":     {call("A", "k1", 0), call("A", "k1", 1)},
		"global-keys":          {call("A", "k1", 0), call("B", "k1", 0)},
		"raw-body-fingerprint": {call("A", "k1", 0), reencoded},
		"check-then-insert":    {burst(call("A", "k1", 0), call("A", "k1", 0))},
		"unique-violation-500": {burst(call("A", "k1", 0), call("A", "k1", 0))},
		"process-mutex":        {burst(call("A", "k1", 0), call("A", "k1", 0))},
		"partial-fingerprint":  {call("A", "k1", 0), call("A", "k1", 1)},
		"query-in-key":         {call("A", "k1", 0), traced},
		"hang-on-burst":        {burst(call("A", "k1", 0), call("A", "k1", 0))},
		"stores-refusals":      {refused, call("A", "k1", 0)},
		// In the keys layout the trimmed key is stored: one call shows it.
		"trimmed-keys": {call("A", model.Shaped("k1", model.ShapeSpace), 0)},
	}
	taggedMinimal := map[string][]model.Step{
		// The tagged layout keeps no key column: the second call shows it.
		"trimmed-keys": {call("A", "k1", 0), call("A", model.Shaped("k1", model.ShapeSpace), 0)},
	}
	layouts := sample.Layouts()
	seedOf := map[ticketsvc.Layout]uint64{ticketsvc.LayoutKeys: 1, ticketsvc.LayoutTagged: 2}
	if testing.Short() {
		// -short (the race-detector run in CI): one layout.
		layouts = layouts[:1]
	}
	for _, layout := range layouts {
		for _, mode := range sample.Modes() {
			t.Run(string(layout)+"/"+mode, func(t *testing.T) {
				if sample.FaultsOnly(mode) || sample.NeedsRedis(mode) {
					t.Skip("shows only under restarts or crashes, or needs its Redis: stress/procfaults.TestProcessFaultModes, stress/deps.TestRedisModes")
				}
				if _, ok := minimal[mode]; !ok && !sample.Passes(mode) {
					t.Fatalf("bug mode %s has no expected minimal plan here", mode)
				}
				if mode == "hang-on-burst" && layout != ticketsvc.LayoutKeys {
					// Each hang waits out a call timeout (and the stall's
					// wait): one layout shows it.
					t.Skip("shows the same in both layouts; each hang costs a call timeout")
				}
				t.Parallel()
				svc := startSample(t, mode, layout)
				seed := seedOf[layout]
				cfg, err := svc.Config(100, seed)
				if err != nil {
					t.Fatal(err)
				}
				cfg.DBStall = "tickets"
				if mode != sample.Correct {
					cfg.MaxBugs = 1 // what is checked here is the first
				}
				res, err := stress.Run(t.Context(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if sample.Passes(mode) {
					if res.Verdict != checks.Pass || res.Plans != 100 {
						t.Fatalf("seed %d: correct service: verdict %s after %d plans, want pass after 100: %v; %+v %v", seed, res.Verdict, res.Plans, res.Err, res.Failures, res.Outside)
					}
					return
				}
				if res.Verdict != checks.Fail || len(res.Failures) == 0 {
					t.Fatalf("seed %d: %s not caught: verdict %s (%v)", seed, mode, res.Verdict, res.Err)
				}
				t.Logf("seed %d: caught after %d plans in %s, shrunk in %s over %d executions", seed, res.Plans,
					res.Detect.Round(time.Millisecond), res.Failures[0].Shrink.Round(time.Millisecond), res.Executions)
				for _, f := range res.Failures[1:] {
					t.Logf("seed %d: also %s after %d plans, shrunk in %s:\n%s", seed, f.Check, f.Plans, f.Shrink.Round(time.Millisecond), f.Plan)
				}
				if got := res.Failures[0].Check; got != sample.Expected[mode] {
					t.Errorf("seed %d: primary check %s, want %s: %v", seed, got, sample.Expected[mode], res.Failures[0].Violations)
				}
				want := model.Plan{Steps: minimal[mode]}
				if steps, ok := taggedMinimal[mode]; ok && layout == ticketsvc.LayoutTagged {
					want = model.Plan{Steps: steps}
				}
				if got := res.Failures[0].Plan; oneEncoding(got).String() != want.String() && !(mode == "trimmed-keys" && sameCalls(got, want)) {
					t.Errorf("seed %d: minimal plan\n%s want\n%s", seed, got, want)
				}
			})
		}
	}
}
