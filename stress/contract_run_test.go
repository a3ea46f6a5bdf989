package stress_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/testbed/sample"
	"github.com/idemstress/idemstress/stress"
)

// An id pointer that matches nothing in any answer is the contract's
// mistake, not the service's: a contract error that names the pointer and
// quotes an answer, not IDEM-008 against a correct service.
func TestIDPointerThatMatchesNothing(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	for _, ptr := range []string{"/nonexistent", "/ticket/id"} {
		cfg, err := svc.Config(20, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Target, cfg.HTTP.ID = nil, ptr
		_, err = stress.Run(t.Context(), cfg)
		if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), `target.id "`+ptr+`"`) || !strings.Contains(err.Error(), "ticket_id") {
			t.Errorf("id %s: %v; want a contract error naming the pointer and quoting an answer", ptr, err)
		}
	}
}

// A service that gives the ID in some answers and not in others is wrong
// (IDEM-008), and stays reported as such.
func TestIDSometimesMissing(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutKeys)
	cfg, err := svc.Config(50, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The key is matched as sent: its shapes (K2, k2 with a no-break
	// space) would be other keys to the fake, and folded keys another bug.
	cfg.World.KeyShapes = false
	real := cfg.Target
	cfg.Target = client.Func(func(ctx context.Context, req client.Request) (client.Response, error) {
		resp, err := real.Do(ctx, req)
		if strings.HasSuffix(req.Key, "k2") {
			resp.ID = "" // answers for one key lack the ID
		}
		return resp, err
	})
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || res.Failures[0].Check != checks.WrongStatus {
		for _, f := range res.Failures {
			t.Logf("%s", f.Plan)
			for _, v := range f.Violations {
				t.Logf("%s: %s", v.Message, v.Detail)
			}
		}
		t.Fatalf("verdict %s (%v); want IDEM-008 first", res.Verdict, res.Err)
	}
}

// A db-stall on a table that no request ever waits on has tested nothing:
// the run is inconclusive and says why. The service's own key table, which
// it writes while handling a call, is a table worth stalling.
func TestStallThatNeverHolds(t *testing.T) {
	t.Parallel()
	svc := startSample(t, sample.Correct, ticketsvc.LayoutTagged)
	if _, err := svc.Pool.Exec(t.Context(), "CREATE TABLE unrelated (id int)"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		table string
		want  checks.Verdict
	}{
		{"unrelated", checks.Inconclusive},
		{"idempotency_keys", checks.Pass},
	} {
		cfg, err := svc.Config(30, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DBStall = tc.table
		res, err := stress.Run(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.want {
			t.Errorf("db_stall %s: verdict %s (%v), want %s", tc.table, res.Verdict, res.Err, tc.want)
		}
		if tc.want == checks.Inconclusive && (res.Err == nil || !strings.Contains(res.Err.Error(), "never held back a request")) {
			t.Errorf("db_stall %s: %v; want it to say the nemesis never held a request back", tc.table, res.Err)
		}
	}
}
