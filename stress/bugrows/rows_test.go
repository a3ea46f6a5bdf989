package bugrows_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// Issue 26.7: one bug is one row. Every bug mode the demo serves
// in-process, run as `idemstress run` runs it (every bug the plans show,
// not the demo's first), is reported as one row under its check; what the
// same mistake shows through other checks is listed under that row
// (stress.Sighting). Before, query-in-key was a row for its duplicate and
// another for the changed payload its noisy retry accepts. The demo's row
// of two bugs in one service keeps both, the tenant leak first.
func TestOneRowPerBug(t *testing.T) {
	if testing.Short() {
		t.Skip("every bug mode, 100 plans each")
	}
	t.Parallel() // beside TestThreeBugsInOneRun
	modes := []string{"no-payload-check,global-keys"}
	for _, m := range sample.Modes() {
		if !sample.Passes(m) && !sample.FaultsOnly(m) && !sample.NeedsRedis(m) {
			modes = append(modes, m)
		}
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // a service and a database each
			svc := startSample(t, mode, ticketsvc.LayoutKeys)
			// The bug shows within the first few plans (2 to 7 in
			// stress/zoo's runs); the rest show it again and must fold
			// into its row (Attributed below), which is what is counted.
			plans := 50
			switch {
			case sample.Replicas(mode) > 1:
				plans = 10 // each burst that meets on one replica's mutex waits out the stall
			case mode == "hang-on-burst":
				// Each hang costs a call timeout, and nearly every plan
				// hangs: found within the first few, the hangs of the
				// plans after it must fold into its row (Searched below).
				plans = 10
			}
			cfg, err := svc.Config(plans, 1)
			if err != nil {
				t.Fatal(err)
			}
			cfg.DBStall, cfg.ShrinkTime = "tickets", 10*time.Second
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Searched != plans {
				t.Errorf("searched %d plans, want all %d: the plans after a bug's row must fold into it", res.Searched, plans)
			}
			if res.Attributed == 0 {
				t.Errorf("no failing plan after the first was attributed to a row: the count tests no folding (notes %q)", res.Notes)
			}
			var want, got []checks.ID
			for _, m := range strings.Split(mode, ",") {
				want = append(want, sample.Expected[m])
			}
			if len(want) == 2 {
				want = []checks.ID{checks.TenantLeak, checks.ChangedAccepted}
			}
			rows := res.Rows(mode)
			for _, row := range rows {
				if row.MinimalPlan == nil {
					continue
				}
				got = append(got, row.Checks[0])
				t.Logf("row %s: %s, checks %v", row.Bug, row.MinimalPlan.Compact(), row.Checks)
				for _, s := range row.Sightings {
					t.Logf("  also seen as %s: %s, sharing %q", s.Bug, s.MinimalPlan.Compact(), s.Shared)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d row(s) %v, want %v (notes %q)", len(got), got, want, res.Notes)
			}
		})
	}
}
