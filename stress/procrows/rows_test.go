package procrows_test

import (
	"slices"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/pgtemp/pgtest"
	"github.com/idemstress/idemstress/internal/sample"
	"github.com/idemstress/idemstress/stress"
)

// Issue 26.7: one bug is one row, for the bug modes the demo runs as
// processes too (restarts, crashes, database errors, slow originals),
// run as `idemstress run` runs them: every bug the plans show, not the
// demo's first. stress/zoorows's TestOneRowPerBug counts the in-process
// ones. memory-keys was two rows before: after a restart the forgotten
// key also takes a changed payload (IDEM-004, A/k1 v0; restart; A/k1 v1),
// now listed under the duplicate's row (stress/sighting_over.go).
func TestProcessModesOneRowPerBug(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes for every mode")
	}
	bin := sampleBinary(t)
	for _, mode := range sample.Modes() {
		if !sample.FaultsOnly(mode) || sample.NeedsRedis(mode) {
			continue
		}
		t.Run(mode, func(t *testing.T) {
			cfg, err := sample.ProcessConfig([]string{bin}, pgtest.NewDatabase(t, cluster), mode, ticketsvc.LayoutKeys)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Plans, cfg.Seed, cfg.ShrinkTime, cfg.DBStall = 40, 5, 30*time.Second, "tickets"
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []checks.ID
			for _, f := range res.Failures {
				got = append(got, f.Check)
				t.Logf("row %s: %s (not minimal %v)", f.Bug, f.Plan.Compact(), f.NotMinimal)
				for _, s := range f.Sightings {
					t.Logf("  also seen as %s: %s, sharing %q", s.Bug, s.Plan.Compact(), s.Shared)
				}
			}
			want := []checks.ID{sample.Expected[mode]}
			if !slices.Equal(got, want) {
				t.Errorf("%d row(s) %v, want %v (notes %q)", len(got), got, want, res.Notes)
			}
		})
	}
}
