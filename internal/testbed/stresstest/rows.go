package stresstest

import (
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp"
	"github.com/idemstress/idemstress/internal/testbed/pgtest"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// ProcessModes are the sample's bug modes that run as processes under
// their faults alone (sample.FaultsOnly), the Redis modes aside, for
// which keep holds.
func ProcessModes(keep func(mode string) bool) []string {
	return slices.DeleteFunc(sample.Modes(), func(m string) bool {
		return !sample.FaultsOnly(m) || sample.NeedsRedis(m) || !keep(m)
	})
}

// OneRowPerBug runs each mode as `idemstress run` runs it, every bug the
// plans show and not the demo's first, and fails unless the mode's bug is
// exactly one row with its expected check (issue 26.7).
func OneRowPerBug(t *testing.T, cluster *pgtemp.Cluster, bin string, modes []string) {
	t.Helper()
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // a database and processes each, mostly waiting
			cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
			if err != nil {
				t.Fatal(err)
			}
			// Every deal of the mode's one fault kind (up to 16 for
			// crash-at's points, a first call's and a retry's) and free
			// plans after them: the bug's later sightings fold into its
			// row (res.Attributed), which is what a row count tests.
			cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.DBStall = 20, 5, 30*time.Second, "tickets"
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d failing plan(s) after the row attributed to it", res.Attributed)
			if res.Searched != cfg.Plans {
				t.Errorf("searched %d plans, want all %d: the plans after a bug's row must fold into it", res.Searched, cfg.Plans)
			}
			var got []checks.ID
			for _, f := range res.Failures {
				got = append(got, f.Check)
				t.Logf("row %s: %s (not minimal %v)", f.Bug, f.Plan.Compact(), f.NotMinimal)
				for _, s := range f.Sightings {
					t.Logf("  also seen as %s: %s, sharing %q", s.Bug, s.Plan.Compact(), s.Shared)
				}
			}
			if want := []checks.ID{sample.Expected[mode]}; !slices.Equal(got, want) {
				t.Errorf("%d row(s) %v, want %v (notes %q)", len(got), got, want, res.Notes)
			}
		})
	}
}

// FaultRowsModes are the process modes whose rows stress/faultrows
// counts (a fault at the service's database work: db-error, crash-at,
// slow-original); stress/procrows counts the others (restarts and
// crashes), so that neither binary nears go test's ten minutes.
var FaultRowsModes = []string{"stores-errors", "key-tx-first", "effects-tx-first", "short-lease", "exits-on-db-error"}
