package stress_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// Rows another writer adds during a run against a correct service: another
// idemstress run's (under an "is…" namespace) make the run inconclusive,
// pointing at --shard; anyone else's are a stray write (IDEM-009).
func TestAnotherWriterDuringARun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample service")
	}
	t.Parallel()
	for _, tc := range []struct {
		name, tenant string
		want         checks.Verdict
	}{
		{"another run", "is0badc0de-A", checks.Inconclusive},
		{"someone else", "acme", checks.Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // a database and a service of its own
			svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
			cfg, err := svc.Config(5, 1)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			cfg.Progress = func(stress.Progress) {
				once.Do(func() { create(t, svc.URL, tc.tenant) })
			}
			res, err := stress.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			note := strings.Join(res.Notes, "\n")
			switch {
			case res.Verdict != tc.want:
				t.Fatalf("verdict %s (%v), outside %v; want %s", res.Verdict, res.Err, res.Outside, tc.want)
			case tc.want == checks.Inconclusive && (len(res.Outside) > 0 || !strings.Contains(note, "stress --shard")):
				t.Errorf("outside %v, notes %q; want no violation and a note pointing at stress --shard", res.Outside, note)
			case tc.want == checks.Fail && (len(res.Outside) == 0 || res.Outside[0].Check != checks.StrayWrite):
				t.Errorf("outside %v; want IDEM-009", res.Outside)
			}
		})
	}
}

// create makes one ticket through the service, as another writer would.
func create(t *testing.T, url, tenant string) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"subject": "Printer offline", "priority": 3, "channel": "email"}`))
	if err != nil {
		t.Error(err)
		return
	}
	req.Header.Set("Idempotency-Key", fmt.Sprintf("%s-k1", tenant))
	req.Header.Set("X-Tenant", tenant)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Errorf("the other writer's call: %s", resp.Status)
	}
}
