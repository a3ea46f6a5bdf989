package zoo_test

import (
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/stress"
)

// The zoo's no-payload-check replays the original ticket for a changed
// payload: a bug under the default fingerprint policy (TestSampleModes
// catches it as IDEM-004), and exactly what changed_payload: replayed
// promises, so under that policy it passes. The correct mode, which
// refuses a changed payload, is then the one outside the contract.
func TestNoPayloadCheckUnderChangedReplayed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		want checks.ID // "" for a pass
	}{
		{"no-payload-check", ""},
		{"correct", checks.WrongStatus},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			svc := startSample(t, tc.mode, ticketsvc.LayoutKeys)
			cfg, err := svc.Config(100, 3)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Contract.ChangedReplayed = true
			cfg.MaxBugs = 1
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.Verdict != checks.Pass || res.Plans != 100 {
					t.Fatalf("%s under changed_payload: replayed: %s after %d plans (%v); %+v", tc.mode, res.Verdict, res.Plans, res.Err, res.Failures)
				}
				return
			}
			if res.Verdict != checks.Fail || res.Failures[0].Check != tc.want {
				t.Fatalf("%s under changed_payload: replayed: %s (%v, %+v); want %s", tc.mode, res.Verdict, res.Err, res.Failures, tc.want)
			}
			t.Logf("caught: %s\n%s", res.Failures[0].Violations, res.Failures[0].Plan)
		})
	}
}
