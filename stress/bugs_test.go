package stress_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/stress"
)

// A service with two bugs shows both in one run, root causes first (here
// neither derives from the other: most severe first), each
// shrunk on its own to the two calls that show it; the checks a bug's
// minimal plan fires beside its own (002 beside 007) are not bugs of
// their own.
func TestEveryBugInOneRun(t *testing.T) {
	t.Parallel()
	want := []wantBug{
		{checks.TenantLeak, model.Plan{Steps: []model.Step{call("A", "k1", 0), call("B", "k1", 0)}}},
		{checks.ChangedAccepted, model.Plan{Steps: []model.Step{call("A", "k1", 0), call("A", "k1", 1)}}},
	}
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		// A service each, so that the seeds run in parallel.
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			everyBugInOneRun(t, seed, want)
		})
	}
}

// wantBug is a bug a run must report, with its minimal plan.
type wantBug struct {
	check checks.ID
	plan  model.Plan
}

// everyBugInOneRun is TestEveryBugInOneRun's run of one seed.
func everyBugInOneRun(t *testing.T, seed uint64, want []wantBug) {
	svc := startSample(t, "no-payload-check,global-keys", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(100, seed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []checks.ID
	for _, f := range res.Failures {
		got = append(got, f.Check)
		t.Logf("seed %d: %s after %d plans, shrunk in %s:\n%s", seed, f.Check, f.Plans, f.Shrink, f.Plan)
	}
	if res.Verdict != checks.Fail || len(res.Failures) != len(want) {
		t.Fatalf("seed %d: verdict %s, bugs %v (%v); want %s and %s", seed, res.Verdict, got, res.Err, want[0].check, want[1].check)
	}
	for i, w := range want {
		f := res.Failures[i]
		if f.Check != w.check || oneEncoding(f.Plan).String() != w.plan.String() {
			t.Errorf("seed %d: bug %d is %s with\n%swant %s with\n%s", seed, i+1, f.Check, f.Plan, w.check, w.plan)
		}
	}
	if cs := res.Rows("svc"); len(cs) != 2 || cs[0].Checks[0] != want[0].check || cs[1].Checks[0] != want[1].check {
		t.Errorf("seed %d: report rows %+v", seed, cs)
	}
}

// One bug is one failure, however many plans of the run show it.
func TestOneBugOneFailure(t *testing.T) {
	t.Parallel()
	svc := startSample(t, "no-payload-check", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(100, 4)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || len(res.Failures) != 1 || res.Failures[0].Check != checks.ChangedAccepted {
		for _, f := range res.Failures {
			t.Logf("%s:\n%s", f.Check, f.Plan)
		}
		t.Fatalf("verdict %s with %d failure(s) (%v); want one, IDEM-004", res.Verdict, len(res.Failures), res.Err)
	}
	if res.Searched != 100 {
		t.Errorf("the search tried %d plans, want its whole budget of 100", res.Searched)
	}
}

// MaxBugs ends the search once that many bugs are found.
func TestMaxBugs(t *testing.T) {
	t.Parallel()
	svc := startSample(t, "no-payload-check,global-keys", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxBugs = 1
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || len(res.Failures) != 1 || res.Searched >= 100 {
		t.Fatalf("verdict %s, %d bug(s) after %d plans (%v); want one, found before the budget is spent", res.Verdict, len(res.Failures), res.Searched, res.Err)
	}
}

// Issue 17.6: a plan that shows a reported bug beside a new one counts
// for the new one. On a service that enqueues an outbox row on every
// call and replays a changed payload, A/k1 v0; A/k1 v1 fires IDEM-001
// and IDEM-004: in sequence the changed payload is a bug of its own, not
// a symptom of the duplicate.
func TestSecondBugBesideAReportedOne(t *testing.T) {
	t.Parallel()
	svc := startSample(t, "outbox-on-retry,no-payload-check", ticketsvc.LayoutKeys)
	cfg, err := svc.Config(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []checks.ID
	for _, f := range res.Failures {
		got = append(got, f.Check)
		t.Logf("%s after %d plans, shrunk in %s:\n%s", f.Check, f.Plans, f.Shrink, f.Plan)
	}
	if !slices.Contains(got, checks.DuplicateEffect) || !slices.Contains(got, checks.ChangedAccepted) {
		t.Fatalf("verdict %s, bugs %v (%v; notes %q); want IDEM-001 and IDEM-004", res.Verdict, got, res.Err, res.Notes)
	}
}

// Issue 16.8: a race is not hidden by a misread replay. In front of a
// check-then-insert service, a proxy answers every replay (200) with 422,
// which the contract reads as a conflict: every retry in sequence is
// IDEM-005. A duplicate under a burst is IDEM-001, and sent one call at a
// time it shows only that IDEM-005, which must not explain it away.
func TestRaceNotHiddenByAMisreadReplay(t *testing.T) {
	t.Parallel()
	svc := startSample(t, "check-then-insert", ticketsvc.LayoutKeys)
	up, err := url.Parse(svc.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode == http.StatusOK {
			resp.StatusCode, resp.Status = http.StatusUnprocessableEntity, "422 Unprocessable Entity"
		}
		return nil
	}
	front := httptest.NewServer(rp)
	defer front.Close()
	cfg, err := svc.Config(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Target, cfg.HTTP.URL, cfg.DBStall = nil, front.URL+up.Path, "tickets"
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []checks.ID
	for _, f := range res.Failures {
		got = append(got, f.Check)
		t.Logf("%s after %d plans:\n%s", f.Check, f.Plans, f.Plan)
	}
	if !slices.Contains(got, checks.DuplicateEffect) || !slices.Contains(got, checks.EqualRejected) {
		t.Errorf("bugs %v (%v; notes %q); want IDEM-001 (the race) and IDEM-005 (the misread replay)", got, res.Err, res.Notes)
	}
}
