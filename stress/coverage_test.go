package stress_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/report"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// Where a run never makes a transition, the checks that need it are not
// exercised, never passed: a world of one tenant, and a contract whose
// service reads the action tag as its key (so no two tenants and no two
// keys apart by white space ever send it one key). The second hides a real
// tenant leak (global-keys), and the run says the check was not exercised.
// With the sample's own contract both transitions happen.
func TestCoverageNotExercised(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the sample service three times")
	}
	tests := []struct {
		name   string
		mode   string
		layout ticketsvc.Layout
		change func(*stress.Config)
		zero   []coverage.Transition
		skip   []checks.ID
	}{
		{"two tenants", sample.Correct, ticketsvc.LayoutKeys, func(*stress.Config) {}, nil, nil},
		{"one tenant", sample.Correct, ticketsvc.LayoutKeys, func(c *stress.Config) { c.World.MaxTenants = 1 },
			[]coverage.Transition{coverage.OtherTenantSameKey}, []checks.ID{checks.TenantLeak}},
		{"the key carried by the tag", "global-keys", ticketsvc.LayoutTagged, func(c *stress.Config) {
			c.HTTP.Headers = maps.Clone(c.HTTP.Headers)
			c.HTTP.Headers["Idempotency-Key"] = "{{tag}}"
			c.HTTP.Headers["X-Client-Key"] = "{{key}}" // the service reads no such header
			c.World.KeyRequired = false                // a keyless call's tag is a key too
		}, []coverage.Transition{coverage.OtherTenantSameKey, coverage.FoldedKey, coverage.Keyless}, []checks.ID{checks.TenantLeak, checks.KeysFolded}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := startSample(t, tc.mode, tc.layout)
			cfg, err := svc.Config(40, 3)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Target = nil // built from cfg.HTTP, changed below
			tc.change(&cfg)
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != checks.Pass {
				t.Fatalf("verdict %s (%v), %d failures", res.Verdict, res.Err, len(res.Failures))
			}
			status := res.Statuses()
			t.Logf("%s", report.CoverageLine(res.Coverage, status))
			for _, tr := range coverage.CallTransitions {
				zero := res.Coverage[tr] == 0
				if want := slices.Contains(tc.zero, tr); zero != want {
					t.Errorf("%s: %d, want zero: %v (coverage %v)", tr, res.Coverage[tr], want, res.Coverage)
				}
			}
			for _, c := range checks.Catalogue() {
				want := checks.Passed
				if slices.Contains(tc.skip, c.ID) || c.ID == checks.StuckAction || c.ID == checks.ErrorReplay {
					want = checks.NotExercised // no crash and no db-error is planned
				}
				if slices.Contains([]checks.ID{checks.PhantomDelivery, checks.DuplicateDelivery, checks.EventIDChanged, checks.LostDelivery}, c.ID) {
					want = checks.NotExercised // the contract declares no sink
				}
				if status[c.ID] != want {
					t.Errorf("%s: %s, want %s", c.ID, status[c.ID], want)
				}
			}
			cs := res.Row(svc.URL)
			if cs.CheckStatus[checks.TenantLeak] != status[checks.TenantLeak] || cs.Coverage[coverage.Called] != res.Calls {
				t.Errorf("the report's case: coverage %v (%d calls), statuses %v", cs.Coverage, res.Calls, cs.CheckStatus)
			}
		})
	}
}
