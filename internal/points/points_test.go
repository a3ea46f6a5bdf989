package points

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/coverage"
	"github.com/idemstress/idemstress/internal/pgproxy"
)

// traced is a Source whose unfaulted calls pass the points of first and
// retry at the database proxy, answered ok unless retryStatus says
// otherwise, and whose coded faults deal codes.
type traced struct {
	first, retry []pgproxy.Step
	retryStatus  int
	proxy        bool
	codes        []string
}

func (s traced) CodesOf(f model.Fault) []string {
	if f == model.FaultDBError {
		return s.codes
	}
	return nil
}

func (s traced) DBProxy() bool { return s.proxy }

func (s traced) TracesOf(_ context.Context, _ model.Namespace, call model.Call, n int) ([][]pgproxy.Step, [][]string, []model.Op, error) {
	ops := []model.Op{{Call: call, Out: model.Outcome{Kind: model.OK, Status: 201}}, {Call: call, Out: model.Outcome{Kind: model.OK, Status: 200}}}
	if s.retryStatus != 0 {
		ops[1].Out = model.Outcome{Kind: model.Conflict, Status: s.retryStatus}
	}
	return [][]pgproxy.Step{s.first, s.retry}, make([][]string, n), ops[:n], nil
}

var (
	stmt1  = pgproxy.Step{Kind: pgproxy.BeforeStatement, Index: 1, Tx: 1}
	after1 = pgproxy.Step{Kind: pgproxy.AfterStatement, Index: 1, Tx: 1}
	commit = pgproxy.Step{Kind: pgproxy.AfterCommit, Index: 1, Tx: 1}
)

// The points a first call and its retry passed become the world's, each
// counted at zero in the coverage; after the search the run says which
// were not tried. A retry the service did not replay names none, and a
// run with no database proxy learns nothing.
func TestDealerLearnsAndTellsPoints(t *testing.T) {
	for _, tc := range []struct {
		name          string
		src           traced
		points, retry []string
		note          string
	}{
		{"first call and retry", traced{first: []pgproxy.Step{stmt1, after1, stmt1, commit}, retry: []pgproxy.Step{stmt1}, proxy: true},
			[]string{"before statement 1", "after statement 1", "after commit 1"}, []string{"before statement 1"},
			"crash-at: tried 1 of 3 points of a first call's work (not tried: after statement 1, after commit 1); 0 of 1 of a retry's (not tried: retry before statement 1)"},
		{"retry refused", traced{first: []pgproxy.Step{stmt1}, retry: []pgproxy.Step{stmt1}, retryStatus: 409, proxy: true},
			[]string{"before statement 1"}, nil, "crash-at: tried 1 of 1 points of a first call's work"},
		{"no proxy", traced{first: []pgproxy.Step{stmt1}}, nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes []string
			d := &Dealer{Session: tc.src, Faults: []model.Fault{model.FaultCrashAt}, World: gen.DefaultWorld(),
				Coverage: StartCoverage([]model.Fault{model.FaultCrashAt}, "", gen.DefaultWorld()), NS: "p-", Note: func(n string) { notes = append(notes, n) }}
			d.Learn(t.Context())
			if !slices.Equal(d.World.Points, tc.points) || !slices.Equal(d.World.RetryPoints, tc.retry) {
				t.Fatalf("points %q, retry points %q; want %q, %q", d.World.Points, d.World.RetryPoints, tc.points, tc.retry)
			}
			for _, p := range tc.points {
				if n, ok := d.Coverage[coverage.PointFired(model.FaultCrashAt, p)]; !ok || n != 0 {
					t.Errorf("coverage of %s: %d, %v; want it counted at zero", p, n, ok)
				}
			}
			if len(tc.points) > 0 {
				d.Coverage[coverage.PointFired(model.FaultCrashAt, tc.points[0])]++ // the search tried the first
			}
			notes = nil
			d.Tried()
			if got := strings.Join(notes, "\n"); got != tc.note {
				t.Errorf("after the search: %q, want %q", got, tc.note)
			}
		})
	}
}

// Each failure a coded fault can deal where the run stands is put in the
// world and counted; a run with no session deals none.
func TestDealerDealsCodes(t *testing.T) {
	d := &Dealer{Session: traced{codes: []string{"40001", "57014"}}, Faults: []model.Fault{model.FaultDBError}, World: gen.DefaultWorld(),
		Coverage: coverage.Coverage{}, Note: func(string) {}}
	d.DealCodes()
	if !slices.Equal(d.World.Codes, []string{"40001", "57014"}) || len(d.Coverage) != 2 {
		t.Errorf("codes %q, coverage %v; want both dealt and counted", d.World.Codes, d.Coverage)
	}
	none := &Dealer{Faults: []model.Fault{model.FaultDBError}, World: gen.DefaultWorld(), Coverage: coverage.Coverage{}}
	none.DealCodes()
	none.Learn(t.Context())
	if len(none.World.Codes) != 0 || len(none.Coverage) != 0 {
		t.Errorf("no session: codes %q, coverage %v; want none", none.World.Codes, none.Coverage)
	}
}
